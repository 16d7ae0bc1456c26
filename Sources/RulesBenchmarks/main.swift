print("RulesBenchmarks")
