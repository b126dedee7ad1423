-- a syntax error on line 3
wrk.path = "/"
local x = = 1
