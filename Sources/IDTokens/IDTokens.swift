// IDTokens: Firebase ID-token verification.
//
// Owns: loading a JSON Web Key Set file of RSA public keys (`KeySet`), verifying a Firebase ID
// token against it and a project id (`FirebaseIDTokenVerifier`), the verified identity and its
// claims (`VerifiedIDToken`, `ClaimValue`), and the stable error codes AUTH1xxx
// (`IDTokenError`). JWT decoding and RSA signatures are jwt-kit's; this module only decides which
// tokens Firebase's rules hold valid. Does not own: fetching keys over the network (the key set is
// a file the operator refreshes), HTTP headers, or what a server does with the uid.
