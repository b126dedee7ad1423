-- chain.lua: the four-step chain of flow-vs-plain.sh in a wrk script (barrage's per-connection
-- tables): POST /items, capture Location and the JSON id, GET the Location, PATCH and DELETE
-- /items/ID, each connection one user, a step at a time; a status other than the step's is
-- counted, a missing capture starts the chain again.
local body = '{"user": 1, "name": "ann"}'
local unexpected = 0
local want = {201, 200, 200, 204}

function request(conn)
  local step = conn.step or 1
  conn.sent = step
  if step == 1 then
    return wrk.format("POST", "/items", {["Content-Type"] = "application/json"}, body)
  elseif step == 2 then
    return wrk.format("GET", conn.item)
  elseif step == 3 then
    return wrk.format("PATCH", "/items/" .. conn.id, {["Content-Type"] = "application/json"}, '{"seq": 1}')
  end
  return wrk.format("DELETE", "/items/" .. conn.id)
end

function response(status, headers, body, conn)
  local step = conn.sent
  if status ~= want[step] then unexpected = unexpected + 1 end
  if step == 1 then
    conn.item = headers["Location"]
    conn.id = body:match('"id": *([0-9]+)')
    if not conn.item or not conn.id then conn.step = 1 return end
  end
  conn.step = step % 4 + 1
end
