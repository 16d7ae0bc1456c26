// FieldValidation: rule packs (validation rules as data) and the email, password and display-name validators.
