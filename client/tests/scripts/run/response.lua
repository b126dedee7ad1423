-- response(status, headers, body): counts by status, the headers table looked up in any case
-- (no fields of a 1xx response before the final one: no Link), the body; done() reads every
-- thread's counts (thread:get) and prints one line each
local threads = {}

function setup(thread)
  threads[#threads + 1] = thread
end

codes = {}
bad = 0

function response(status, headers, body)
  codes[status] = (codes[status] or 0) + 1
  local length = tonumber(headers["content-length"])
  if length ~= #body or headers["CONTENT-LENGTH"] ~= headers["Content-Length"] or headers["X-None"] ~= nil
      or headers["link"] ~= nil then
    bad = bad + 1
  end
  last_body = body
end

function done(summary, latency, requests)
  local total = {}
  for _, thread in ipairs(threads) do
    for code, n in pairs(thread:get("codes")) do
      total[code] = (total[code] or 0) + n
    end
    io.write("bad ", thread:get("bad"), " body ", tostring(thread:get("last_body")), "\n")
  end
  local parts = {}
  for code, n in pairs(total) do
    parts[#parts + 1] = code .. "=" .. n
  end
  table.sort(parts)
  io.write("codes ", table.concat(parts, " "), "\n")
  local e = summary.errors
  io.write(string.format("summary %d %d %d %d %d %d %d\n", summary.requests, summary.bytes, e.connect, e.read,
    e.write, e.status, e.timeout))
  io.write(string.format("latency %s %s %d %d\n", tostring(latency.min > 0), tostring(latency.max >= latency.min),
    latency:percentile(50), #requests))
end
