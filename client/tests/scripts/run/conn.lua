-- per-connection tables: request(conn) numbers the requests of each connection and names the
-- status response(..., conn) saw last on it and how often delay(conn) was asked on it
function request(conn)
  conn.n = (conn.n or 0) + 1
  return wrk.format(nil, "/c" .. conn.n .. "-" .. tostring(conn.status) .. "-" .. tostring(conn.delays))
end

function response(status, headers, body, conn)
  conn.status = status
end

function delay(conn)
  conn.delays = (conn.delays or 0) + 1
  return 0
end
