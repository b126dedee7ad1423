-- response(): header names looked up without regard to case, the body, one headers table reused
calls = 0

function response(status, headers, body)
  calls = calls + 1
  local names = 0
  for _ in pairs(headers) do
    names = names + 1
  end
  seen = string.format("%d|%s|%s|%s|%s|%s|%d", status, tostring(headers["Location"]),
    tostring(headers["content-type"]), tostring(headers["X-Missing"]), tostring(headers["X-DUP"]), body, names)
  same_table = tostring(previous == headers)
  previous = headers
end
