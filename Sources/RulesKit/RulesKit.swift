// RulesKit: the public facade a server or client imports.
