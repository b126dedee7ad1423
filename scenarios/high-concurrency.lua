-- high-concurrency: GET / over 1000 connections (set in scenarios.tsv, passed as wrk -c).
wrk.method = "GET"
wrk.path = "/"

-- Print the metrics record from done(): json-report.lua sits next to this file.
dofile((debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./") .. "json-report.lua")
