-- response() sees its headers, then changes the table it got as `mode` says;
-- barrage refills the same table for the next response (wrk makes a new one),
-- which must hold exactly that response's headers again.
mode = "none"
seen = ""

function response(status, headers, body)
   local pairs_seen = {}
   for name, value in pairs(headers) do pairs_seen[#pairs_seen + 1] = name .. "=" .. value end
   table.sort(pairs_seen)
   seen = table.concat(pairs_seen, ",")
   if mode == "change" then
      headers["a"] = "changed"
      headers["b"] = nil
   elseif mode == "add" then
      headers["added"] = "x"
   end
end
