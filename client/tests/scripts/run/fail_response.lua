-- a runtime error in response(), on the 5th response of a thread
local n = 0

function response(status, headers, body)
  n = n + 1
  if n == 5 then
    error("boom in response " .. status)
  end
end
