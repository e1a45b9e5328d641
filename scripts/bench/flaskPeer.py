"""A stand-in for OSWorld's in-VM server (desktop_env/server/main.py), for `npm run bench -- peers` and `episodes`.

It does what that server does for the calls the benchmarks compare, in the same way: Flask on
Werkzeug's threaded server, `subprocess.run` for /execute, `send_file` for /file, a multipart form
saved with `FileStorage.save` for /setup/upload, and for /screenshot a grab of the X display
(DISPLAY) encoded as PNG and sent with `send_file`, as `pyautogui.screenshot()` does on Linux
(Pillow's ImageGrab; the server's cursor overlay is left out). Run with Debian's python3,
python3-flask and, for /screenshot, python3-pil:

    /usr/bin/python3 flaskPeer.py PORT

It prints "listening on 127.0.0.1:PORT" once it accepts connections.
"""

import io
import os
import platform
import shlex
import subprocess
import sys

from flask import Flask, jsonify, request, send_file

app = Flask(__name__)


@app.route("/platform", methods=["GET"])
def get_platform():
    return platform.system()


@app.route("/execute", methods=["POST"])
def execute_command():
    data = request.json
    shell = data.get("shell", False)
    command = data.get("command", "" if shell else [])
    if isinstance(command, str) and not shell:
        command = shlex.split(command)
    for i, arg in enumerate(command):
        if arg.startswith("~/"):
            command[i] = os.path.expanduser(arg)
    try:
        result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, shell=shell, text=True, timeout=120)
        return jsonify({"status": "success", "output": result.stdout, "error": result.stderr, "returncode": result.returncode})
    except Exception as e:  # noqa: BLE001 - the server answers every failure the same way
        return jsonify({"status": "error", "message": str(e)}), 500


@app.route("/file", methods=["POST"])
def get_file():
    file_path = request.form.get("file_path")
    if not file_path:
        return "file_path is required", 400
    file_path = os.path.expandvars(os.path.expanduser(file_path))
    if not os.path.exists(file_path):
        return "File not found", 404
    return send_file(file_path, as_attachment=True)


@app.route("/screenshot", methods=["GET"])
def capture_screen():
    try:
        from PIL import ImageGrab
    except ImportError:
        return "python3-pil is not installed (bash scripts/install-system-deps.sh bench)", 501
    # OSWorld's server saves to a file before send_file; in memory here, so nothing is left behind.
    png = io.BytesIO()
    ImageGrab.grab().save(png, "PNG")
    png.seek(0)
    return send_file(png, mimetype="image/png")


@app.route("/setup/upload", methods=["POST"])
def upload_file():
    if "file_path" in request.form and "file_data" in request.files:
        file_path = os.path.expandvars(os.path.expanduser(request.form["file_path"]))
        request.files["file_data"].save(file_path)
        return "File Uploaded"
    return "file_path and file_data are required", 400


if __name__ == "__main__":
    port = int(sys.argv[1])
    print(f"listening on 127.0.0.1:{port}", flush=True)
    app.run(host="127.0.0.1", port=port, threaded=True)
