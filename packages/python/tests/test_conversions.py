"""Actions and observations to and from the wire, with no server."""
import json

import pytest
from conftest import observation

from pincer import Observation, ObservationOptions, to_action
from pincer._proto import common_pb2, episodes_pb2, screen_pb2


def test_wait_done_and_fail_are_special_in_every_action_space():
    for space in (None, "tool_call", "pyautogui", "computer_13", "anthropic_computer", "openai_computer"):
        assert to_action("WAIT", space).special == episodes_pb2.Action.SPECIAL_WAIT
        assert to_action("DONE", space).special == episodes_pb2.Action.SPECIAL_DONE
        assert to_action({"action_type": "FAIL"}, space).special == episodes_pb2.Action.SPECIAL_FAIL


def test_a_tool_call_dict_carries_its_arguments_as_json():
    a = to_action({"name": "desktop__click", "arguments": {"x": 10, "y": 20}}, "tool_call")
    assert a.WhichOneof("kind") == "tool_call"
    assert a.tool_call.name == "desktop__click"
    assert json.loads(a.tool_call.arguments_json) == {"x": 10, "y": 20}
    # The solution files' spelling (args), a JSON string, and no arguments at all.
    assert json.loads(to_action({"name": "desktop__key", "args": {"keys": "ctrl+s"}}).tool_call.arguments_json) == {"keys": "ctrl+s"}
    assert to_action({"name": "desktop__type", "arguments": '{"text": "hi"}'}).tool_call.arguments_json == '{"text": "hi"}'
    assert json.loads(to_action({"name": "desktop__screenshot"}).tool_call.arguments_json) == {}


def test_strings_are_pyautogui_code_and_computer_13_dicts_are_json():
    assert to_action("pyautogui.click(1, 2)").pyautogui == "pyautogui.click(1, 2)"
    a = to_action({"action_type": "CLICK", "parameters": {"x": 1, "y": 2}})
    assert a.WhichOneof("kind") == "computer_13_json"
    assert json.loads(a.computer_13_json) == {"action_type": "CLICK", "parameters": {"x": 1, "y": 2}}
    assert to_action('{"action_type": "CLICK"}', "computer_13").computer_13_json == '{"action_type": "CLICK"}'


def test_computer_use_actions_go_as_their_json_under_their_action_space():
    a = to_action({"action": "left_click", "coordinate": [10, 20]}, "anthropic_computer")
    assert a.WhichOneof("kind") == "anthropic_computer_json"
    assert json.loads(a.anthropic_computer_json) == {"action": "left_click", "coordinate": [10, 20]}
    # The whole tool_use block: its input.
    block = {"type": "tool_use", "id": "tu_1", "name": "computer", "input": {"action": "type", "text": "hi"}}
    assert json.loads(to_action(block, "anthropic_computer").anthropic_computer_json) == {"action": "type", "text": "hi"}
    o = to_action({"type": "keypress", "keys": ["CTRL", "A"]}, "openai_computer")
    assert o.WhichOneof("kind") == "openai_computer_json"
    assert json.loads(o.openai_computer_json) == {"type": "keypress", "keys": ["CTRL", "A"]}
    # The whole computer_call item: its action.
    item = {"type": "computer_call", "call_id": "c1", "action": {"type": "click", "x": 1, "y": 2, "button": "left"}, "pending_safety_checks": []}
    assert json.loads(to_action(item, "openai_computer").openai_computer_json) == {"type": "click", "x": 1, "y": 2, "button": "left"}
    # A JSON string as it is.
    assert to_action('{"type": "screenshot"}', "openai_computer").openai_computer_json == '{"type": "screenshot"}'
    assert to_action('{"action": "screenshot"}', "anthropic_computer").anthropic_computer_json == '{"action": "screenshot"}'
    with pytest.raises(ValueError, match="anthropic_computer action needs 'action'"):
        to_action({"coordinate": [1, 2]}, "anthropic_computer")
    with pytest.raises(ValueError, match="openai_computer action needs 'type'"):
        to_action({"x": 1}, "openai_computer")
    # Without the action space a computer-use dict is neither a tool call nor computer_13: the error says what to give.
    with pytest.raises(ValueError, match='action_space="anthropic_computer"'):
        to_action({"action": "left_click", "coordinate": [10, 20]})


def test_an_action_of_another_space_or_shape_is_refused():
    with pytest.raises(ValueError, match="string action is pyautogui code"):
        to_action("pyautogui.click(1, 2)", "tool_call")
    with pytest.raises(ValueError, match="tool call"):
        to_action({"name": "desktop__click"}, "pyautogui")
    with pytest.raises(ValueError, match="needs 'name'"):
        to_action({"tool": "desktop__click"})
    with pytest.raises(TypeError):
        to_action(42)
    msg = episodes_pb2.Action(pyautogui="x")
    assert to_action(msg) is msg


def test_observation_options_by_name_dict_and_default():
    assert ObservationOptions.of(None).to_proto() == episodes_pb2.ObservationOptions(
        screenshot=True, format=screen_pb2.IMAGE_FORMAT_PNG, accessibility=episodes_pb2.ACCESSIBILITY_FORM_NONE
    )
    xml = ObservationOptions.of("screenshot_a11y_tree").to_proto()
    assert xml.screenshot and xml.accessibility == episodes_pb2.ACCESSIBILITY_FORM_OSWORLD_XML
    tree = ObservationOptions.of("a11y_text").to_proto()
    assert not tree.screenshot and tree.accessibility == episodes_pb2.ACCESSIBILITY_FORM_TEXT
    small = ObservationOptions.of({"format": "jpeg", "max_width": 320}).to_proto()
    assert (small.format, small.max_width, small.max_height) == (screen_pb2.IMAGE_FORMAT_JPEG, 320, 0)
    assert not xml.set_of_marks
    som = ObservationOptions.of("som").to_proto()
    assert som.screenshot and som.set_of_marks and som.accessibility == episodes_pb2.ACCESSIBILITY_FORM_TEXT
    assert ObservationOptions.of({"set_of_marks": True, "screenshot": False}).to_proto().set_of_marks
    with pytest.raises(ValueError, match="unknown observation"):
        ObservationOptions.of("pixels")
    with pytest.raises(ValueError, match="unknown screenshot format"):
        ObservationOptions(format="gif").to_proto()


def test_an_observation_becomes_a_dict_per_environment():
    opts = ObservationOptions(accessibility="text").to_proto()
    obs = Observation.from_proto(observation(3, opts, names=("desktop", "server")))
    assert obs.step == 3 and obs.names == ["desktop", "server"]
    d = obs.to_dict()
    assert set(d) == {"desktop", "server"}
    assert d["desktop"]["screenshot"].startswith(b"\x89PNG")
    assert (d["desktop"]["width"], d["desktop"]["height"], d["desktop"]["scale"]) == (640, 400, 0.5)
    assert d["desktop"]["source"] == (0, 0, 1280, 800)
    assert d["desktop"]["accessibility_tree"] == "[window] Terminal"
    assert obs["server"].screenshot.endswith(b"server")
    # No tree asked for: None, not "".
    plain = Observation.from_proto(observation(0, ObservationOptions().to_proto())).to_dict()
    assert plain["desktop"]["accessibility_tree"] is None


def test_marks_and_the_accessibility_error_come_with_the_observation():
    marks = [
        episodes_pb2.Mark(id=1, bounds=common_pb2.Region(x=100, y=200, width=80, height=30), role="push-button", name="Yes"),
        episodes_pb2.Mark(id=2, bounds=common_pb2.Region(x=10, y=20, width=300, height=25), role="entry", name=""),
    ]
    marked = episodes_pb2.Observation(step=1, environments=[episodes_pb2.EnvironmentObservation(name="desktop", marks=marks)])
    d = Observation.from_proto(marked).to_dict()["desktop"]
    assert d["marks"] == [
        {"id": 1, "bounds": (100, 200, 80, 30), "role": "push-button", "name": "Yes"},
        {"id": 2, "bounds": (10, 20, 300, 25), "role": "entry", "name": ""},
    ]
    assert d["accessibility_error"] is None
    assert Observation.from_proto(marked)["desktop"].marks[0].bounds == (100, 200, 80, 30)
    # A tree that could not be read: no tree, and why.
    failed = episodes_pb2.EnvironmentObservation(name="desktop", accessibility_error="no accessibility bus")
    d = Observation.from_proto(episodes_pb2.Observation(environments=[failed])).to_dict()["desktop"]
    assert (d["accessibility_tree"], d["accessibility_error"], d["marks"]) == (None, "no accessibility bus", [])
