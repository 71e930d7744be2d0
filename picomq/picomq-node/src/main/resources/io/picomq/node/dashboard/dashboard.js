// Polls the admin API of the node that served this page and renders what it answers.
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

function rows(id, items, columns, empty) {
  const body = document.getElementById(id);
  body.replaceChildren();
  if (items.length === 0) {
    const tr = document.createElement("tr");
    const td = cell(empty);
    td.colSpan = columns.length;
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
    body.appendChild(tr);
  }
}

async function fetchJson(path) {
  // /ready answers 503 with a JSON body while the node is not ready: that is data, not failure.
  const response = await fetch(path, { cache: "no-store" });
  return response.json();
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
      ["nodeId", "nodeEpoch", "state", "address", "slots", "streams"],
      "no nodes",
    );
    rows("transfers", cluster.pendingTransfers, ["streamId", "fromNode", "toNode", "epoch"], "none");
    text("updated", "Last update " + new Date().toLocaleTimeString() + ".");
    text("error", "");
  } catch (e) {
    status.textContent = "unreachable";
    status.className = "badge unreachable";
    text("error", "The admin API did not answer: " + e.message);
  }
}

refresh();
setInterval(refresh, POLL_MS);
