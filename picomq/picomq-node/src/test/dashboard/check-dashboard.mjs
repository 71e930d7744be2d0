// Opens the dashboard in headless Chromium, waits for it to render the node's answers, checks
// that it polls again, and prints what it shows as one JSON line on stdout.
// Usage: node check-dashboard.mjs <dashboard url> [screenshot.png] [--act STREAM NODE]
// With --act (for tests: it changes the cluster) it then uses the page's controls: cancels the
// first pending transfer, moves STREAM to NODE with the form, drains NODE, and drains the node that
// serves the page; after each it records the tables and the page's report of the answer.
import { chromium } from "playwright-core";

const args = process.argv.slice(2);
const actAt = args.indexOf("--act");
const act = actAt < 0 ? null : { stream: args[actAt + 1], node: args[actAt + 2] };
const [url, screenshot] = actAt < 0 ? args : args.slice(0, actAt);
if (!url || (act && !(act.stream && act.node))) {
  console.error("usage: node check-dashboard.mjs <dashboard url> [screenshot.png] [--act STREAM NODE]");
  process.exit(2);
}

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
  ],
});
try {
  const page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(url);
  // Rendered once the first poll answered.
  await page.waitForFunction(() => document.getElementById("node-id").textContent !== "?", null, {
    timeout: 10000,
  });
  const first = await page.textContent("#updated");
  // The page polls every 2 s: a later poll rewrites the time of the last update.
  await page.waitForFunction((before) => document.getElementById("updated").textContent !== before, first, {
    timeout: 6000,
  });
  const shown = {
    nodeId: await page.textContent("#node-id"),
    ready: await page.textContent("#ready"),
    status: await page.textContent("#status"),
    nodes: await page.$$eval("#nodes tr", (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent))),
    transfers: await page.$$eval("#transfers tr", (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent))),
    errors,
  };
  if (act) {
    shown.actions = await useControls(page, act);
  }
  if (screenshot) {
    await page.screenshot({ path: screenshot, fullPage: true });
  }
  console.log(JSON.stringify(shown));
} finally {
  await browser.close();
}

async function table(page, id) {
  return page.$$eval(`#${id} tr`, (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent)));
}

// What the page shows after one of its controls was used and `done` became true in the page.
async function after(page, done, arg) {
  await page.waitForFunction(done, arg, { timeout: 10000 });
  return {
    result: await page.textContent("#action-result"),
    nodes: await table(page, "nodes"),
    transfers: await table(page, "transfers"),
  };
}

function drainButton(page, nodeId) {
  return page
    .locator("#nodes tr")
    .filter({ has: page.locator("td:first-child", { hasText: new RegExp(`^${nodeId}$`) }) })
    .getByRole("button", { name: "Drain" });
}

async function useControls(page, { stream, node }) {
  page.on("dialog", (dialog) => dialog.accept()); // drain asks for confirmation
  const actions = {};
  await page.locator("#transfers").getByRole("button", { name: "Cancel" }).first().click();
  actions.cancelled = await after(page, () =>
    document.querySelector("#transfers td").textContent === "none",
  );
  await page.fill("#transfer-stream", stream);
  await page.fill("#transfer-node", node);
  await page.click("#transfer-form button[type=submit]");
  actions.transferred = await after(
    page,
    (name) => document.querySelector("#transfers td").textContent === name,
    stream,
  );
  await drainButton(page, node).click();
  actions.drained = await after(
    page,
    (id) => [...document.querySelectorAll("#nodes tr")].some((r) => r.cells[0].textContent === id && r.cells[4].textContent === "0"),
    node,
  );
  await drainButton(page, await page.textContent("#node-id")).click();
  actions.refused = await after(page, () =>
    document.getElementById("action-result").textContent.startsWith("no_target"),
  );
  return actions;
}
