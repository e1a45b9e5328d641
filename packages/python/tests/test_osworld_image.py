"""OSWorld's run loop on the machine its tasks expect: `pincer serve` with containers of Pincer's
office image (user `user`, sudo, ~/Desktop), an unchanged OSWorld task file of
test/fixtures/osworld reset through pincer.osworld.DesktopEnv and solved with pyautogui-space code
to evaluate() == 1, and the same task with only DONE scored 0.

The image is built by the images test project (test/images/pythonOsworld.test.ts), which runs this
file with PINCER_TEST_OFFICE_IMAGE set to the image's folder; elsewhere these tests are skipped."""
from __future__ import annotations

import json
import os

import pytest
from conftest import ROOT
from serving import is_mp4, run_single_example, serve, why_not

pytestmark = pytest.mark.server

TOKEN = "pincer-python-office-token"
# "I have a directory named todo_list_Jan_1. Can you help me change its name into todo_list_Jan_2?"
# Its setup makes ~/Desktop/todo_list_Jan_1 with sudo; its evaluator checks ~/Desktop/todo_list_Jan_2.
TASK = os.path.join(ROOT, "test", "fixtures", "osworld", "os", "e0df059f-28a6-4169-924f-b9623e7184cc.json")


@pytest.fixture(scope="module")
def served():
    image = os.environ.get("PINCER_TEST_OFFICE_IMAGE")
    if not image:
        pytest.skip("needs the office image: test/images/pythonOsworld.test.ts runs this file with PINCER_TEST_OFFICE_IMAGE set")
    reason = why_not()
    if reason:
        pytest.skip(reason)
    with serve(os.path.dirname(TASK), ["--provider", "container", "--image", image], TOKEN, start_timeout=180) as address:
        yield address


def _example() -> dict:
    with open(TASK) as f:
        return json.load(f)


def _recording_whole_or_none(path: str) -> bool:
    """The loop's recording: an MP4, or none where the image has no ffmpeg (end_recording then logs
    the failure, as OSWorld's controller does, and writes nothing); never part of a file."""
    return is_mp4(path) if os.path.exists(path) else os.listdir(os.path.dirname(path)) == []


def test_an_osworld_task_solved_with_pyautogui_code_scores_1(served, tmp_path):
    # What OSWorld's agents emit: a click to focus the desktop, then a command through os.system (in
    # OSWorld the code runs as Python on the machine; Pincer reads it and runs the command there).
    plan = [
        ["import pyautogui; import time; pyautogui.click(640, 360); time.sleep(0.5)"],
        ["import os\nos.system('mv ~/Desktop/todo_list_Jan_1 ~/Desktop/todo_list_Jan_2')"],
        ["DONE"],
    ]
    score, infos, recording = run_single_example(served, TOKEN, _example(), lambda obs, step: plan[step], str(tmp_path))
    assert [i["error"] for i in infos] == ["", "", ""], infos
    assert infos[-1]["step_done"] is True
    assert score == 1.0
    assert _recording_whole_or_none(recording)


def test_the_same_task_with_only_done_scores_0(served, tmp_path):
    score, infos, recording = run_single_example(served, TOKEN, _example(), lambda obs, step: ["DONE"], str(tmp_path))
    assert len(infos) == 1 and infos[0]["step_done"] is True
    assert score == 0.0
    assert _recording_whole_or_none(recording)
