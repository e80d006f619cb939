# cdp.py - a headless Chromium driven over the DevTools protocol on a pipe
# (--remote-debugging-pipe: requests on fd 3, replies on fd 4, each message
# NUL-terminated JSON). Nothing but the Python standard library; used by
# trace_chromium.py and html_chromium.py.
import json
import os
import shutil
import subprocess
import tempfile
import time


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None


class Browser:
    def __init__(self, exe, extra=()):
        self.profile = tempfile.mkdtemp(prefix="hipsvm-chromium.")
        to_chrome_r, self._w = os.pipe()
        self._r, from_chrome_w = os.pipe()

        def child_fds():
            a, b = os.dup(to_chrome_r), os.dup(from_chrome_w)
            os.dup2(a, 3)
            os.dup2(b, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)

        self.log = open(os.path.join(self.profile, "stderr.log"), "w")
        args = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
                "--no-first-run", "--user-data-dir=" + self.profile, *extra, "about:blank"]
        # A sanitizer runtime a test wrapper preloads is not for the browser.
        env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self.log,
                                     stderr=self.log, close_fds=False, preexec_fn=child_fds,
                                     env=env)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buf = b""
        self._id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        return self._id

    def call(self, method, params=None, session=None):
        want = self.send(method, params, session)
        while True:
            while b"\0" in self._buf:
                raw, self._buf = self._buf.split(b"\0", 1)
                msg = json.loads(raw)
                if msg.get("id") == want:
                    if "error" in msg:
                        raise RuntimeError(f"{method}: {msg['error']}")
                    return msg.get("result", {})
                if "method" in msg:
                    self.events.append(msg)
            data = os.read(self._r, 1 << 20)
            if not data:
                raise RuntimeError("chromium closed the pipe (see " + self.log.name + ")")
            self._buf += data

    def open_page(self, url):
        target = self.call("Target.createTarget", {"url": url})["targetId"]
        return self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]

    def evaluate(self, session, expr, timeout=60):
        """The value of expr (awaited) in the page; retried while the page loads."""
        deadline = time.time() + timeout
        while True:
            r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                               "awaitPromise": True}, session)
            if "exceptionDetails" not in r:
                return r["result"].get("value")
            if time.time() > deadline:
                raise RuntimeError(json.dumps(r["exceptionDetails"])[:2000])
            time.sleep(0.2)

    def close(self):
        try:
            self.send("Browser.close")
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
            self.proc.wait()
        os.close(self._w)
        os.close(self._r)
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)
