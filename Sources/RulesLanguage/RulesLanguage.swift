// RulesLanguage: parse, check and evaluate Firebase-style security rules (Firestore and Storage).
