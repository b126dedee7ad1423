-- done(summary, latency, requests): wrk's summary fields and stats objects
function done(summary, latency, requests)
  local e = summary.errors
  fields = string.format("%d %d %d %d %d %d %d %d", summary.duration, summary.requests, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout)
  stats = string.format("%d %d %.3f %.3f %d %d %d", latency.min, latency.max, latency.mean, latency.stdev,
    latency:percentile(50), latency:percentile(99.9), #latency)
  local v1, c1 = latency(1)
  local v3, c3 = latency(3)
  local v4, c4 = latency(4)
  raw = string.format("%d:%d %d:%d %d:%d", v1, c1, v3, c3, v4, c4)
  rates = string.format("%d %d %d", requests.min, requests.max, #requests)
  unknown = tostring(latency.nothing)
end
