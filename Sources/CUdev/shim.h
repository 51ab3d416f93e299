#ifndef EVROUTE_CUDEV_SHIM_H
#define EVROUTE_CUDEV_SHIM_H
/* libudev imports into Swift as is; nothing to wrap. */
#include <libudev.h>
#endif
