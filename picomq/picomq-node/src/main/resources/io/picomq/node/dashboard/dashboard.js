// Polls the admin API of the node that served this page and renders what it answers; its buttons
// and form call the same API's verbs (drain, rebalance, transfer, cancel) and show the answer.
// No framework: the page is small and must work from the jar with no network access.
"use strict";

const POLL_MS = 2000;

function text(id, value) {
  document.getElementById(id).textContent = String(value);
}

function cell(value) {
  const td = document.createElement("td");
  td.textContent = value === null || value === undefined ? "" : String(value);
  return td;
}

function button(label, onClick) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = label;
  b.addEventListener("click", onClick);
  return b;
}

// One row per item, a cell per column; `action(item)`, if given, makes the last cell's button.
function rows(id, items, columns, empty, action) {
  const body = document.getElementById(id);
  body.replaceChildren();
  const width = columns.length + (action ? 1 : 0);
  if (items.length === 0) {
    const tr = document.createElement("tr");
    const td = cell(empty);
    td.colSpan = width;
    tr.appendChild(td);
    body.appendChild(tr);
    return;
  }
  for (const item of items) {
    const tr = document.createElement("tr");
    for (const column of columns) {
      const td = cell(item[column]);
      if (column === "state") {
        // live, suspect or dead: coloured by the style sheet.
        td.className = "state " + item[column];
      }
      tr.appendChild(td);
    }
    if (action) {
      const td = document.createElement("td");
      td.appendChild(action(item));
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }
}

async function fetchJson(path) {
  // /ready answers 503 with a JSON body while the node is not ready: that is data, not failure.
  const response = await fetch(path, { cache: "no-store" });
  return response.json();
}

// Says what the last verb did: its answer on success, the API's error code and message otherwise.
function report(ok, message) {
  const result = document.getElementById("action-result");
  result.textContent = message;
  result.className = ok ? "ok" : "failed";
}

function moves(answer) {
  const refused = answer.refused.length === 0 ? "" : ", " + answer.refused.length + " refused";
  return answer.transfers.length + " transfer(s)" + refused;
}

// POSTs `body` to `path`, reports the outcome with `describe(answer)` and polls again at once.
async function post(path, body, describe) {
  try {
    const response = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const answer = await response.json();
    if (response.ok) {
      report(true, describe(answer));
    } else {
      report(false, answer.error + ": " + answer.message);
    }
  } catch (e) {
    report(false, "The admin API did not answer: " + e.message);
  }
  await refresh();
}

function drain(node) {
  if (!confirm("Drain node " + node.nodeId + "? Its slots go to 0 and its streams move away.")) {
    return;
  }
  post("/admin/drain", { node: node.nodeId }, (a) =>
    "Draining node " + a.node + " (slots were " + a.previousSlots + "): " + moves(a) + ".",
  );
}

function rebalance() {
  if (!confirm("Rebalance the streams over the nodes?")) {
    return;
  }
  post("/admin/rebalance", { by: "streams" }, (a) => "Rebalance: " + moves(a) + ".");
}

function cancel(transfer) {
  const body = transfer.stream === null ? { streamId: transfer.streamId } : { stream: transfer.stream };
  post("/admin/transfer/cancel", body, (a) =>
    "Transfer of " + (a.stream ?? "stream " + a.streamId) + ": " + a.state + ".",
  );
}

function transfer(event) {
  event.preventDefault();
  const stream = document.getElementById("transfer-stream").value;
  const toNode = Number(document.getElementById("transfer-node").value);
  post("/admin/transfer", { stream, toNode }, (a) =>
    "Transfer of " + a.stream + " to node " + a.toNode + ": " + a.state + ".",
  );
}

async function refresh() {
  const status = document.getElementById("status");
  try {
    const [ready, cluster, nodes] = await Promise.all([
      fetchJson("/ready"),
      fetchJson("/admin/cluster"),
      fetchJson("/admin/nodes"),
    ]);
    text("node-id", ready.nodeId);
    text("node-epoch", ready.nodeEpoch);
    text("cluster-id", cluster.clusterId);
    text("ready", ready.ready ? "ready" : "not ready");
    text("applied-index", cluster.appliedIndex);
    text("stream-count", cluster.streams);
    text("object-count", cluster.objects);
    text("lease-holder", cluster.leaseHolder ? "yes" : "no");
    text("metadata", cluster.metadata);
    status.textContent = ready.ready ? "ready" : "not ready";
    status.className = "badge " + (ready.ready ? "ready" : "not-ready");
    rows(
      "nodes",
      nodes.nodes,
      ["nodeId", "nodeEpoch", "state", "address", "slots", "streams", "openStreams"],
      "no nodes",
      (node) => button("Drain", () => drain(node)),
    );
    rows(
      "transfers",
      cluster.pendingTransfers,
      ["stream", "streamId", "fromNode", "toNode", "epoch"],
      "none",
      (pending) => button("Cancel", () => cancel(pending)),
    );
    text("updated", "Last update " + new Date().toLocaleTimeString() + ".");
    text("error", "");
  } catch (e) {
    status.textContent = "unreachable";
    status.className = "badge unreachable";
    text("error", "The admin API did not answer: " + e.message);
  }
}

document.getElementById("rebalance").addEventListener("click", rebalance);
document.getElementById("transfer-form").addEventListener("submit", transfer);
refresh();
setInterval(refresh, POLL_MS);
