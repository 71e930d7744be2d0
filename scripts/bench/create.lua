-- wrk script: creates a new stream per request, PUT /v1/stream/bench-<RUN>-<thread>-<n> with no
-- body. RUN (environment) keeps runs against one server from colliding. Used by
-- scripts/bench-compare-workloads.sh and scripts/bench-creates.sh.
local run = os.getenv("RUN") or "0"
local counter = 0
function setup(thread) thread:set("id", counter); counter = counter + 1 end
function init(args) n = 0 end
function request()
  n = n + 1
  return wrk.format("PUT", "/v1/stream/bench-" .. run .. "-" .. id .. "-" .. n,
    {["Content-Type"] = "application/octet-stream"}, "")
end
