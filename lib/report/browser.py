#!/usr/bin/env python3
"""browser: open a report page in headless chromium and say what a reader would see.

    browser.py PAGE.html [--screenshot OUT.png] [--width PX] [--height PX] [--timeout S]

Starts Debian's chromium headless with a fresh, empty profile and drives it over the DevTools
protocol on a pipe (--remote-debugging-pipe: no port, no websocket). Loads the page from disk,
waits until its scripts ran, and prints one JSON object on stdout:
  console_errors   console.error/assert calls, uncaught exceptions, the browser's error log
                   (a blocked or failed load, a CSP violation)
  requests         every URL the page asked for other than itself (data: and blob: left out):
                   a self-contained page asks for none
  charts           per <div class="chart">: id, kind, its canvas size and how many of a grid of
                   sampled pixels are painted (a drawn chart has some, an empty canvas none),
                   its series' names and each value or log axis's {dim, name, type, extent}
                   as ECharts drew it
  tables           per table: its class, the text of its head's cells, its width and the
                   width of what holds it (room: wider than that, it is cut or scrolls)
  headline         the run page's answer (#headline): per item its key, verdict, leader, text;
                   first_section: the id of what comes first after the title and banners
  charts_drawn     the count report.js set after drawing them
  cells            every table cell with a data-field: {key, field, value, text}, key being its
                   row's data-key or data-server
  banners          the id and text of each .banner; flags: the data-flag of each flag shown
  links            every <a href>: {text, href (as written), protocol and url as the browser
                   resolves them, path: the url's path decoded}
  screenshot       {path, width, height, bytes, painted_share, colours}: the top of the page
                   (width x height), its share of pixels that are not the background and how
                   many distinct colours it has (a blank page: ~0 and 1)
Exit 0 when the page loaded (whatever it holds: the caller judges), 1 when it could not be
loaded or the browser failed, 2 on usage errors.
"""

import argparse
import base64
import fcntl
import json
import os
import pathlib
import select
import shutil
import subprocess
import sys
import tempfile
import time

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--disable-extensions", "--mute-audio", "--hide-scrollbars",
         "--remote-debugging-pipe"]

COLLECT = r"""
(() => {
  const painted = (canvas) => {
    const ctx = canvas.getContext('2d');
    if (!ctx || !canvas.width || !canvas.height) return 0;
    const img = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    let n = 0;
    for (let y = 0; y < canvas.height; y += 4)
      for (let x = 0; x < canvas.width; x += 4)
        if (img[(y * canvas.width + x) * 4 + 3] > 0) n++;
    return n;
  };
  // a drawn chart's series and the extent of each value or log axis, as ECharts laid them out
  const drawn = (el) => {
    const chart = window.echarts && echarts.getInstanceByDom(el);
    if (!chart) return {series: [], axes: []};
    const axes = [];
    for (const dim of ['xAxis', 'yAxis'])
      chart.getModel().eachComponent(dim, (m) => {
        const a = m.axis;
        if (a && a.type !== 'category' && a.type !== 'time')
          axes.push({dim: dim, name: m.get('name') || null, type: a.type, extent: a.scale.getExtent()});
      });
    return {series: (chart.getOption().series || []).map(x => x.name), axes};
  };
  const charts = [...document.querySelectorAll('div.chart')].map(el => {
    const canvas = el.querySelector('canvas');
    return Object.assign({id: el.id, kind: el.dataset.kind, canvas: !!canvas,
            width: canvas ? canvas.width : 0, height: canvas ? canvas.height : 0,
            painted: canvas ? painted(canvas) : 0}, drawn(el));
  });
  const cells = [...document.querySelectorAll('td[data-field]')].map(td => {
    const tr = td.closest('tr');
    return {key: tr.dataset.key || tr.dataset.server || null, table: td.closest('table').className,
            field: td.dataset.field, value: td.dataset.value === undefined ? null : td.dataset.value,
            text: td.textContent};
  });
  const tables = [...document.querySelectorAll('table')].map(t => ({
    class: t.className, head: [...t.querySelectorAll('thead th')].map(th => th.textContent),
    width: Math.ceil(t.getBoundingClientRect().width), room: t.parentElement.clientWidth}));
  const headline = [...document.querySelectorAll('#headline li')].map(li => ({
    key: li.dataset.key, verdict: li.dataset.verdict, leader: li.dataset.leader, text: li.textContent}));
  const first = document.querySelector('h1 ~ *:not(.banner)');
  return {charts, cells, tables, headline, first_section: first ? first.id || null : null,
          charts_drawn: document.documentElement.dataset.chartsDrawn || null,
          banners: [...document.querySelectorAll('.banner')].map(b => ({id: b.id, text: b.textContent})),
          flags: [...document.querySelectorAll('.flag')].map(f => f.dataset.flag),
          links: [...document.querySelectorAll('a[href]')].map(a => ({text: a.textContent, href: a.getAttribute('href'),
                  protocol: a.protocol, url: a.href, path: decodeURIComponent(a.pathname)})),
          title: document.title, height: document.documentElement.scrollHeight};
})()
"""


# (width, height, share of pixels unlike the top-left one, distinct colours up to 4,096) of a
# PNG, every other pixel of each row judged; run in the page once its facts are taken (its
# policy lets images come from data: URLs)
SHOT_FACTS = r"""
(async (src) => {
  const img = new Image();
  img.src = src;
  await img.decode();
  const w = img.naturalWidth, h = img.naturalHeight;
  const canvas = document.createElement('canvas');
  canvas.width = w;
  canvas.height = h;
  const ctx = canvas.getContext('2d');
  ctx.drawImage(img, 0, 0);
  const d = ctx.getImageData(0, 0, w, h).data;
  let background = null, differ = 0;
  const colours = new Set();
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x += 2) {
      const i = (y * w + x) * 4, px = (d[i] << 16) | (d[i + 1] << 8) | d[i + 2];
      if (background === null) background = px;
      if (px !== background) differ++;
      if (colours.size < 4096) colours.add(px);
    }
  return [w, h, differ / (h * Math.ceil(w / 2)), colours.size];
})
"""


class Browser:
    """One chromium process and its DevTools pipe; commands are sent to one page session."""

    def __init__(self, timeout):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="barrage report browser ")
        exe = shutil.which("chromium") or shutil.which("chromium-browser")
        if not exe:
            raise RuntimeError("chromium not found (apt-get install chromium)")
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()

        def wire():
            # The pipe's ends may be fds 3 or 4 themselves: move them out of the way first.
            read_end, write_end = os.dup(to_child_r), os.dup(from_child_w)
            high_read, high_write = fcntl.fcntl(read_end, fcntl.F_DUPFD, 10), fcntl.fcntl(write_end, fcntl.F_DUPFD, 10)
            os.dup2(high_read, 3)
            os.dup2(high_write, 4)
        self.proc = subprocess.Popen([exe] + FLAGS + ["--user-data-dir=" + self.profile, "about:blank"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, close_fds=False, preexec_fn=wire,
                                     start_new_session=True)
        os.close(to_child_r)
        os.close(from_child_w)
        self.buffer = b""
        self.next_id = 0
        self.session = None
        self.events = []

    def close(self):
        try:
            self.send("Browser.close", session=False, wait=False)
        except OSError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, 9)
            self.proc.wait()
        for fd in (self.to_child, self.from_child):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)

    def _read_message(self, deadline):
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the browser did not answer in time")
            ready, _, _ = select.select([self.from_child], [], [], left)
            if ready:
                chunk = os.read(self.from_child, 1 << 16)
                if not chunk:
                    raise RuntimeError("the browser closed its DevTools pipe (exit %s)" % self.proc.poll())
                self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method, params=None, session=True, wait=True):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self.to_child, json.dumps(message).encode() + b"\0")
        if not wait:
            return None
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError("%s: %s" % (method, reply["error"].get("message")))
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    def wait_event(self, method, seconds):
        deadline = time.monotonic() + seconds
        while True:
            for e in self.events:
                if e["method"] == method:
                    return e
            try:
                self.events.append(self._read_message(deadline))
            except TimeoutError:
                return None

    def drain(self, seconds):
        deadline = time.monotonic() + seconds
        try:
            while True:
                self.events.append(self._read_message(deadline))
        except TimeoutError:
            pass

    def evaluate(self, expression):
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise RuntimeError("evaluate: %s" % result["exceptionDetails"].get("text"))
        return result["result"].get("value")


def inspect(page, screenshot, width, height, timeout):
    browser = Browser(timeout)
    try:
        browser.send("Browser.getVersion", session=False)
        target = browser.send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        browser.session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True},
                                       session=False)["sessionId"]
        for domain in ("Runtime", "Log", "Network", "Page"):
            browser.send(domain + ".enable")
        browser.send("Emulation.setDeviceMetricsOverride",
                     {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        url = pathlib.Path(os.path.abspath(page)).as_uri()
        browser.send("Page.navigate", {"url": url})
        if not browser.wait_event("Page.loadEventFired", timeout):
            raise RuntimeError("the page did not finish loading in %s s" % timeout)
        deadline = time.monotonic() + timeout
        while browser.evaluate("document.documentElement.dataset.chartsDrawn || ''") == "" and time.monotonic() < deadline:
            browser.drain(0.2)
        browser.drain(0.5)  # let the charts paint and late errors arrive
        facts = browser.evaluate(COLLECT)
        shot = None
        if screenshot:
            data = base64.b64decode(browser.send("Page.captureScreenshot", {
                "format": "png", "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}})["data"])
            with open(screenshot, "wb") as f:
                f.write(data)
            # the PNG decoded and judged by the browser: in Python, PNG's filters take ~3 s a shot
            w, h, share, colours = browser.evaluate(
                SHOT_FACTS + "(%s)" % json.dumps("data:image/png;base64," + base64.b64encode(data).decode()))
            shot = {"path": screenshot, "width": w, "height": h, "bytes": len(data),
                    "painted_share": round(share, 4), "colours": colours}
        browser.drain(0.1)
    finally:
        browser.close()
    errors, requests = [], []
    for e in browser.events:
        m, p = e["method"], e.get("params", {})
        if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            errors.append("console.%s: %s" % (p["type"], " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))))
        elif m == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            errors.append("exception: %s %s" % (d.get("text"), (d.get("exception") or {}).get("description", "")))
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            errors.append("log: %s (%s)" % (p["entry"].get("text"), p["entry"].get("url", "")))
        elif m == "Network.requestWillBeSent":
            u = p.get("request", {}).get("url", "")
            if u != url and not u.startswith(("data:", "blob:", "about:")):
                requests.append(u)
    facts.update({"console_errors": errors, "requests": requests, "screenshot": shot, "url": url})
    return facts


def main(argv):
    parser = argparse.ArgumentParser(prog="browser.py")
    parser.add_argument("page")
    parser.add_argument("--screenshot")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=1400)
    parser.add_argument("--timeout", type=float, default=30)
    args = parser.parse_args(argv)
    if not os.path.isfile(args.page):
        print("browser.py: %s: no such file" % args.page, file=sys.stderr)
        return 2
    try:
        facts = inspect(args.page, args.screenshot, args.width, args.height, args.timeout)
    except (RuntimeError, OSError, TimeoutError, ValueError) as e:
        print("browser.py: %s" % e, file=sys.stderr)
        return 1
    json.dump(facts, sys.stdout, indent=1, ensure_ascii=False)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
