#ifndef CZ3_SHIM_H
#define CZ3_SHIM_H
/* Z3's C API (Debian libz3-dev). Only RulesVerification imports this module. */
#include <z3.h>
#endif
