-- json-report.lua: wrk's done() hook that prints the metrics record (docs/metrics.md)
-- as one JSON line after wrk's own summary. Every scenario file ends by loading this file.
-- wrk counts socket errors, not failed requests, and gives no per-status counts, so what it does
-- not provide is null and the record says "accounting": "approximate".
-- What wrk 4.1 counts (src/wrk.c, response_complete): it has no request timer. `--timeout` is
-- the top of its latency histogram: a response that arrives later is counted in requests and
-- in errors.timeout (and in errors.status if > 399), not in the histogram; a request never
-- answered is counted nowhere. The histogram holds the time from a request's first write to
-- its response's last byte, any status, for responses within `--timeout`, plus the samples
-- wrk adds itself at the end (stats_correct: for each response slower than twice the mean
-- interval between a connection's requests, copies at that latency minus 1, 2, ... intervals).
-- wrk records no time for socket errors: error_latency_us is null. wrk has no grace period:
-- completed_in_grace is null.

local function number(value)
  if value == nil then return "null" end
  if value == math.floor(value) then return string.format("%d", value) end
  return string.format("%.3f", value)
end

local function object(fields)
  local parts = {}
  for _, field in ipairs(fields) do
    parts[#parts + 1] = string.format('"%s":%s', field[1], field[2])
  end
  return "{" .. table.concat(parts, ",") .. "}"
end

function done(summary, latency, requests)
  local errors = summary.errors
  local duration_us = summary.duration
  local seconds = duration_us / 1000000
  local completed = summary.requests
  -- errors.status counts answers with status > 399; timeouts, reads and writes are socket errors.
  local failed = errors.status + errors.read + errors.write + errors.timeout
  -- A "timeout" is a late response, already in summary.requests; a late one with a status
  -- > 399 is in both counts, so succeeded can be short by those.
  local succeeded = math.max(completed - errors.status - errors.timeout, 0)
  -- An empty histogram (no response within --timeout) reports a negative min.
  local sampled = latency.min >= 0 and latency.max > 0
  local function stat(value) return sampled and number(value) or "null" end
  local function pct(p) return sampled and number(latency:percentile(p)) or "null" end
  local record = object({
    {"requests", number(completed)},
    {"succeeded", number(succeeded)},
    {"failed", number(failed)},
    {"aborted", "null"},
    {"status", object({{"2xx", "null"}, {"3xx", "null"}, {"4xx", "null"}, {"5xx", "null"},
                       {"codes", "null"}})},
    {"errors", object({{"timeout", number(errors.timeout)}, {"read", number(errors.read)},
                       {"write", number(errors.write)}, {"protocol", "null"}, {"reset", "null"},
                       {"status", number(errors.status)}})},
    {"connections", object({{"connect_attempts", "null"}, {"connect_errors", number(errors.connect)},
                            {"established", "null"}, {"peak", "null"}, {"tls_errors", "null"},
                            {"refused_streams", "null"}})},
    {"duration_us", number(duration_us)},
    {"rps", number(seconds > 0 and completed / seconds or 0)},
    {"successful_rps", number(seconds > 0 and succeeded / seconds or 0)},
    {"completed_in_grace", "null"},
    {"bytes_received", number(summary.bytes)},
    {"bytes_sent", "null"},
    {"latency_us", object({{"min", stat(latency.min)}, {"mean", stat(latency.mean)},
                           {"stdev", stat(latency.stdev)}, {"p50", pct(50)}, {"p75", pct(75)},
                           {"p90", pct(90)}, {"p99", pct(99)}, {"p999", pct(99.9)},
                           {"p9999", pct(99.99)}, {"max", stat(latency.max)},
                           {"overflow", "null"}})},
    {"error_latency_us", "null"},
    {"accounting", '"approximate"'},
  })
  io.write(record, "\n")
end
