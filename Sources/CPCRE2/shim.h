#ifndef CPCRE2_SHIM_H
#define CPCRE2_SHIM_H
/* pcre2.h requires the code unit width to be chosen before inclusion. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#endif
