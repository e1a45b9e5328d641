#!/usr/bin/env python3
"""An agent program for `pincer run --agent command`: a small MCP client in plain Python.

    pincer run examples/terminal/write-greeting --agent command -- python3 examples/agents/mcp_agent.py

Pincer starts it once per attempt with the task's instruction on stdin (also in PINCER_INSTRUCTION)
and the attempt's MCP endpoint in PINCER_MCP_URL and PINCER_MCP_TOKEN. It speaks MCP's streamable
HTTP transport with the standard library only: initialize, then tools/call. Each call is one step of
the attempt, recorded in its trajectory with screenshots.

`decide` is where a real agent asks its model what to do next, given the instruction and the latest
screenshot. Here it is a rule that solves the demo's "create a file holding a line" tasks, so that the
example runs without a model.
"""

import json
import os
import re
import shlex
import sys
import urllib.request

URL = os.environ["PINCER_MCP_URL"]
TOKEN = os.environ["PINCER_MCP_TOKEN"]


class Mcp:
    """A minimal MCP client over streamable HTTP (JSON-RPC POSTs; replies as JSON or server-sent events)."""

    def __init__(self, url, token):
        self.url, self.token, self.session, self.next_id = url, token, None, 0

    def _post(self, message):
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "Authorization": f"Bearer {self.token}",
        }
        if self.session:
            headers["Mcp-Session-Id"] = self.session
        req = urllib.request.Request(self.url, json.dumps(message).encode(), headers, method="POST")
        with urllib.request.urlopen(req, timeout=600) as resp:
            self.session = resp.headers.get("Mcp-Session-Id", self.session)
            body = resp.read().decode()
            if "text/event-stream" not in resp.headers.get("Content-Type", ""):
                return json.loads(body) if body else None
            # Server-sent events: the reply is the data of the event that answers our id.
            for event in body.split("\n\n"):
                data = "\n".join(line[5:].strip() for line in event.splitlines() if line.startswith("data:"))
                if data and json.loads(data).get("id") == message.get("id"):
                    return json.loads(data)
        return None

    def request(self, method, params):
        self.next_id += 1
        reply = self._post({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']['message']}")
        return reply["result"]

    def initialize(self):
        info = {"name": "mcp_agent.py", "version": "1.0"}
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": info})
        self._post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def call(self, tool, arguments=None):
        result = self.request("tools/call", {"name": tool, "arguments": arguments or {}})
        text = " ".join(c.get("text", f"<{c['type']}>") for c in result["content"])
        return result, text


def decide(instruction, screenshot):
    """The next tool call, or None when the task is done. A real agent asks its model here."""
    m = re.search(r"Create the file (\S+) containing exactly the line: (.+)$", instruction)
    if m:
        path, line = m.groups()
        return "desktop__run_command", {"command": f"printf '%s\\n' {shlex.quote(line)} > {shlex.quote(path)}"}
    return None


def main():
    instruction = sys.stdin.read().strip()
    mcp = Mcp(URL, TOKEN)
    mcp.initialize()
    tools = [t["name"] for t in mcp.request("tools/list", {})["tools"]]
    print("tools:", " ".join(tools))
    for _ in range(int(os.environ.get("PINCER_MAX_STEPS", "10"))):
        shot, _ = mcp.call("desktop__screenshot")
        png = next((c["data"] for c in shot["content"] if c["type"] == "image"), None)
        action = decide(instruction, png)
        if action is None:
            break
        result, text = mcp.call(*action)
        print(action[0], "->", text)
        if result.get("isError") or "The attempt has ended" in text:
            return
        instruction = ""  # one action solves the demo task; a model would look at the screen again
    _, text = mcp.call("root__complete")
    print("root__complete ->", text)


if __name__ == "__main__":
    main()
