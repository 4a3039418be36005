"""Chromium driven headless over its DevTools pipe, for the tests that open arbitro's HTML pages."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
NEEDS_CHROMIUM = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (Debian: apt-get install -y chromium)"
)

# every image complete and decoded, once the page itself (not the blank tab) has loaded
PROBE = """new Promise(done => {
  const look = () => {
    if (location.protocol !== 'file:' || document.readyState !== 'complete') {
      setTimeout(look, 50);
      return;
    }
    const imgs = Array.from(document.images);
    done(JSON.stringify({
      title: document.title,
      images: imgs.length,
      decoded: imgs.filter(i => i.complete && i.naturalWidth > 0).length,
      links: Array.from(document.querySelectorAll('td a[href^="#"]')).length,
      broken: Array.from(document.querySelectorAll('td a[href^="#"]'))
        .filter(a => !document.getElementById(decodeURIComponent(a.hash.slice(1)))).length,
      text: document.body.innerText.length,
    }));
  };
  look();
})"""


class DevTools:
    """Chromium driven over --remote-debugging-pipe: JSON messages ending in NUL on fds 3 and 4."""

    def __init__(self) -> None:
        self.profile = tempfile.mkdtemp(prefix="arbitro-chromium-")
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        os.set_inheritable(to_chrome_r, True)
        os.set_inheritable(from_chrome_w, True)

        def fds() -> None:
            # through fresh numbers first, so that neither end lands on the other's target
            r, w = os.dup(to_chrome_r), os.dup(from_chrome_w)
            os.dup2(r, 3)
            os.dup2(w, 4)

        assert CHROMIUM is not None
        self.proc = subprocess.Popen(
            [
                CHROMIUM,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                f"--user-data-dir={self.profile}",
                "--remote-debugging-pipe",
                "about:blank",
            ],
            preexec_fn=fds,
            close_fds=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.next_id = 0
        self.buffer = b""

    def call(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        msg: dict[str, Any] = {"id": self.next_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        while True:
            while b"\0" not in self.buffer:
                chunk = os.read(self.from_chrome, 1 << 16)
                if not chunk:
                    raise RuntimeError("chromium closed the pipe")
                self.buffer += chunk
            raw, self.buffer = self.buffer.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(reply["error"])
                return dict(reply["result"])

    def probe(self, url: str) -> dict[str, Any]:
        target = self.call("Target.createTarget", url=url)["targetId"]
        session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for _ in range(100):
            try:
                got = self.call(
                    "Runtime.evaluate",
                    session,
                    expression=PROBE,
                    awaitPromise=True,
                    returnByValue=True,
                )
            except RuntimeError as e:
                # the blank tab's context goes away when the page itself commits: ask again
                if "context was destroyed" not in str(e):
                    raise
                time.sleep(0.1)
                continue
            return dict(json.loads(got["result"]["value"]))
        raise RuntimeError(f"{url} never finished loading")

    def open(self, url: str, width: int = 1280, height: int = 900) -> str:
        """A new tab at `url` (`width` x `height` CSS pixels), once the page has loaded: its
        session id, for `evaluate` and `screenshot`."""
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.call(
            "Emulation.setDeviceMetricsOverride",
            session,
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )
        self.call("Page.navigate", session, url=url)
        for _ in range(200):
            try:
                state = self.evaluate(session, "location.href + ' ' + document.readyState")
            except RuntimeError as e:
                if "context was destroyed" not in str(e) and "Cannot find context" not in str(e):
                    raise
                state = ""
            if state == f"{url} complete":
                return str(session)
            time.sleep(0.05)
        raise RuntimeError(f"{url} never finished loading")

    def evaluate(self, session: str, expression: str) -> Any:
        """The value of a JavaScript expression in the tab (JSON-able values only)."""
        got = self.call("Runtime.evaluate", session, expression=expression, returnByValue=True)[
            "result"
        ]
        return got.get("value")

    def screenshot(self, session: str, path: str, selector: str | None = None) -> bytes:
        """A PNG of the tab's window, or of the whole element `selector` finds (scrolled to);
        written to `path` and returned."""
        import base64

        params: dict[str, Any] = {"format": "png"}
        if selector is not None:
            box = self.evaluate(
                session,
                f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
                " e.scrollIntoView(); const r = e.getBoundingClientRect();"
                " return {x: r.x + scrollX, y: r.y + scrollY, width: r.width,"
                " height: Math.max(r.height, 1)}; })()",
            )
            params["clip"] = {**box, "scale": 1}
            params["captureBeyondViewport"] = True
        data = base64.b64decode(self.call("Page.captureScreenshot", session, **params)["data"])
        with open(path, "wb") as f:
            f.write(data)
        return data

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()
        os.close(self.to_chrome)
        os.close(self.from_chrome)
        shutil.rmtree(self.profile, ignore_errors=True)
