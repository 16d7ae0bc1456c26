// BatchValidation: streaming record readers and writers for the `validate` CLI.
