// GENERATED FILE: written by scripts/embed-rule-packs from rules/. Do not edit; run the script.

/// The shipped rule packs and list files, keyed by path relative to `rules/`.
enum EmbeddedRulePacks {
    static let files: [String: String] = [
        "display-name.yaml": #"""
# Display-name (username) rules: the app's Instagram-style policy.
# The raw input is validated: no trimming, NFKC or case folding happens first.
# Format: docs/RULE-PACKS.md. Codes DN1xx are stable; never reuse a retired one.
pack: display-name
field: display-name
description: Usernames of 3-30 ASCII letters, digits, periods and underscores.
rules:
  - id: display-name.min-length
    code: DN101
    kind: length
    unit: code-points
    min: 3
    message: "Username must be at least {min} characters long."
    description: A username has at least 3 characters (Unicode code points of the raw input).
    source: Product rule (usernames are 3-30 characters)
    examples:
      valid: ["abc", "a_b"]
      invalid: ["", "a", "ab", "é"]

  - id: display-name.max-length
    code: DN102
    kind: length
    unit: code-points
    max: 30
    message: "Username must be {max} characters or less."
    description: A username has at most 30 characters (Unicode code points of the raw input).
    source: Product rule (usernames are 3-30 characters)
    examples:
      valid: ["abcdefghijklmnopqrstuvwxyz1234"]
      invalid: ["abcdefghijklmnopqrstuvwxyz12345"]

  - id: display-name.characters
    code: DN103
    kind: must-match
    pattern: '[A-Za-z0-9._]*'
    message: "Username can only contain letters, numbers, periods, and underscores."
    description: >-
      Only ASCII letters, digits, period and underscore. The class is spelled out (no caseless
      flag), so look-alikes such as U+212A KELVIN SIGN and full-width letters are rejected.
    source: Product rule (username character set)
    examples:
      valid: ["john.doe", "John_Doe_99", "___"]
      invalid: ["john doe", "john-doe", "jöhn", "john\n", "ｊｏｈｎ", "john\u200Bdoe", "\u212Aelvin"]

  - id: display-name.leading-period
    code: DN104
    kind: must-not-match
    pattern: '\A\.'
    message: "Username cannot start with a period."
    description: The first character is not a period.
    source: Product rule (period placement)
    examples:
      valid: ["john.", "_john"]
      invalid: [".john"]

  - id: display-name.trailing-period
    code: DN105
    kind: must-not-match
    pattern: '\.\z'
    message: "Username cannot end with a period."
    description: The last character is not a period (checked with `\z`, so a trailing newline does not hide it).
    source: Product rule (period placement)
    examples:
      valid: ["john_", ".john_"]
      invalid: ["john.", "jo.hn."]

  - id: display-name.consecutive-periods
    code: DN106
    kind: must-not-match
    pattern: '\.\.'
    message: "Username cannot contain two periods in a row."
    description: No two consecutive periods anywhere.
    source: Product rule (period placement)
    examples:
      valid: ["j.o.h.n", "john._doe"]
      invalid: ["john..doe", "jo...hn"]

  - id: display-name.reserved
    code: DN107
    kind: list
    file: lists/reserved-names.txt
    key: canonical
    include-app-name: true
    message: "This username is reserved. Please choose a different one."
    description: >-
      Role and system names (RFC 2142 mailboxes, admin, root, support, api, www, help,
      settings, ...) and the app's own name, compared on the canonical key (ASCII lowercase).
    source: RFC 2142 section 3-5; product rule (reserved names)
    examples:
      valid: ["admin_1", "john.doe", "administrators.club"]
      invalid: ["admin", "Admin", "ROOT", "postmaster", "www", "Support", "settings"]

  - id: display-name.reserved-lookalike
    code: DN108
    kind: list
    file: lists/reserved-names.txt
    key: lookalike
    include-app-name: true
    unless: display-name.reserved
    message: "This username is too similar to a reserved name. Please choose a different one."
    description: >-
      Catches reserved names spelled with look-alike characters: the look-alike key lowercases,
      maps 1, i and | to l, 0 to o and rn to m (adm1n, admln, r00t). Disable this rule to allow them.
    source: Product rule (impersonation of reserved names)
    examples:
      valid: ["admiral", "rooted", "john.doe"]
      invalid: ["adm1n", "admln", "ADMlN", "r00t", "supp0rt", "he1p", "adrnin"]

"""#,
        "lists/reserved-names.txt": #"""
# Reserved display names, compared on the canonical key (ASCII lowercase) and, by
# display-name.reserved-lookalike, on the look-alike key. One name per line; `#` starts a comment.
# Sources: RFC 2142 (mailbox names for common services, roles and functions), sections 3-5,
# and the product's own system and route names.
#
# RFC 2142 section 3: business-related mailboxes
info
marketing
sales
support
# RFC 2142 section 4: network operations mailboxes
abuse
noc
security
# RFC 2142 section 5: support mailboxes for specific internet services
postmaster
hostmaster
usenet
news
webmaster
www
uucp
ftp
# Privileged and system accounts
admin
administrator
root
system
sysadmin
superuser
moderator
mod
staff
official
owner
operator
bot
daemon
nobody
null
undefined
anonymous
guest
test
# Product routes and features
api
app
help
settings
account
accounts
login
logout
signin
signup
register
auth
oauth
billing
payments
contact
about
privacy
terms
legal
status
dashboard
explore
search
home
email
team

"""#,
    ]
}
