// Opens the dashboard in headless Chromium, waits for it to render the node's answers, checks
// that it polls again, and prints what it shows as one JSON line on stdout.
// Usage: node check-dashboard.mjs <dashboard url> [screenshot.png]
import { chromium } from "playwright-core";

const [url, screenshot] = process.argv.slice(2);
if (!url) {
  console.error("usage: node check-dashboard.mjs <dashboard url> [screenshot.png]");
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
  if (screenshot) {
    await page.screenshot({ path: screenshot, fullPage: true });
  }
  console.log(JSON.stringify(shown));
} finally {
  await browser.close();
}
