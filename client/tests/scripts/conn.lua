-- per-connection tables: request(conn), response(status, headers, body, conn), delay(conn)
function request(conn)
  conn.n = (conn.n or 0) + 1
  return wrk.format(nil, "/c" .. conn.n .. "-" .. tostring(conn.status))
end

function response(status, headers, body, conn)
  conn.status = status
end

function delay(conn)
  return conn.n
end
