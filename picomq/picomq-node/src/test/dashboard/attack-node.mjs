// Plays hostile web pages against a node in headless Chromium, as issue 17 tried it from a browser
// on the node's machine, and prints what each attempt saw as one JSON line on stdout.
// Usage: node attack-node.mjs <data port> <admin port> <witness port>
//
// - crossSite: a page of https://evil.test calls the node at 127.0.0.1 directly.
// - rebound: DNS rebinding. The page was loaded from http://evil.test:<port>, and then evil.test
//   resolves to 127.0.0.1 (--host-resolver-rules), so its same-origin calls reach the node with
//   Host: evil.test:<port>.
// - allowed: a page served from this machine (http://localhost:5173), which the default
//   --cors-origins (loopback) allows.
// - witness: the cross-site page's no-cors POST to a server that counts what reaches it (the test
//   runs it on 127.0.0.1), showing such requests do leave this browser.
// Pages are served by the script itself (page.route), never by the node. Chromium's own guard for
// calls from public pages to this machine (Local/Private Network Access) is turned off: the test is
// about what the node does, and other browsers have no such guard.
import { chromium } from "playwright-core";

const [dataPort, adminPort, witnessPort] = process.argv.slice(2);
if (!dataPort || !adminPort || !witnessPort) {
  console.error("usage: node attack-node.mjs <data port> <admin port> <witness port>");
  process.exit(2);
}
const data = `http://127.0.0.1:${dataPort}`;
const admin = `http://127.0.0.1:${adminPort}`;
const witness = `http://127.0.0.1:${witnessPort}`;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--host-resolver-rules=MAP evil.test 127.0.0.1",
    "--disable-features=LocalNetworkAccessChecks,PrivateNetworkAccessSendPreflights," +
      "PrivateNetworkAccessRespectPreflightResults,BlockInsecurePrivateNetworkRequests",
  ],
});
try {
  const crossSite = await onPage("http://evil.test:8000/", async ({ data, admin, witness }) => ({
    witness: await attempt(`${witness}/seen`, {
      method: "POST",
      mode: "no-cors",
      headers: { "Content-Type": "text/plain" },
      body: "sent by evil.test",
    }),
    list: await attempt(`${data}/`),
    read: await attempt(`${data}/victim?seq=0`),
    delete: await attempt(`${data}/victim`, { method: "DELETE" }),
    seal: await attempt(`${data}/victim`, { method: "POST", headers: { "Pico-Closed": "true" } }),
    blindAppend: await attempt(`${data}/victim`, {
      method: "POST",
      mode: "no-cors",
      headers: { "Content-Type": "text/plain" },
      body: "written by evil.test",
    }),
    adminJson: await attempt(`${admin}/admin/nodes/1`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: '{"slots":7}',
    }),
    adminTextPlain: await attempt(`${admin}/admin/nodes/1`, {
      method: "POST",
      mode: "no-cors",
      headers: { "Content-Type": "text/plain" },
      body: '{"slots":7}',
    }),
  }));
  const rebound = {
    data: await onPage(`http://evil.test:${dataPort}/attacker.html`, async () => ({
      list: await attempt("/"),
      delete: await attempt("/victim", { method: "DELETE" }),
    })),
    admin: await onPage(`http://evil.test:${adminPort}/attacker.html`, async () => ({
      cluster: await attempt("/admin/cluster"),
      slots: await attempt("/admin/nodes/1", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: '{"slots":7}',
      }),
    })),
  };
  const allowed = await onPage("http://localhost:5173/", async ({ data }) => ({
    list: await attempt(`${data}/`),
    append: await attempt(`${data}/victim`, {
      method: "POST",
      headers: { "Content-Type": "text/plain" },
      body: "written by localhost:5173",
    }),
  }));
  console.log(JSON.stringify({ crossSite, rebound, allowed }));
} finally {
  await browser.close();
}

// Opens a page at `url` (an empty document served here) and runs `attempts` in it.
async function onPage(url, attempts) {
  const page = await browser.newPage();
  try {
    await page.route(url, (route) =>
      route.fulfill({ status: 200, contentType: "text/html", body: "<!doctype html><title>page</title>" }),
    );
    await page.goto(url);
    await page.addScriptTag({ content: attempt.toString() });
    return await page.evaluate(attempts, { data, admin, witness });
  } finally {
    await page.close();
  }
}

// In the page: what a fetch let the page see. `blocked` when the browser refused it (CORS),
// `opaque` when it was sent but its answer is hidden (no-cors), else the status and body.
async function attempt(url, init) {
  try {
    const response = await fetch(url, init);
    if (response.type === "opaque") {
      return { opaque: true };
    }
    return { status: response.status, body: await response.text() };
  } catch (e) {
    return { blocked: String(e) };
  }
}
