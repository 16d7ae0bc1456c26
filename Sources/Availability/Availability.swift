// Availability: the debounced display-name availability checker and the ClaimStore protocol.
