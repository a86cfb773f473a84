-- wrk script used by Benchmarks/run.py: optional POST body from a file, and a machine-readable
-- summary line. wrk's own text output stays on stdout above it; run.py reads the WRK_RESULT line.
--
-- Environment:
--   WRK_BODY_FILE  if set, every request is a POST whose body is this file's contents
--                  (wrk formats the request once, so a 100 MiB body is read once, not per request)

local body_file = os.getenv("WRK_BODY_FILE")
if body_file and body_file ~= "" then
  local file = assert(io.open(body_file, "rb"))
  wrk.method = "POST"
  wrk.body = file:read("*a")
  file:close()
  wrk.headers["Content-Type"] = "application/octet-stream"
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"requests":%d,"bytes":%d,"duration_us":%d,"socket_errors":%d,"status_errors":%d,' ..
    '"p50_us":%.1f,"p99_us":%.1f}\n',
    summary.requests, summary.bytes, summary.duration,
    e.connect + e.read + e.write + e.timeout, e.status,
    latency:percentile(50), latency:percentile(99)))
end
