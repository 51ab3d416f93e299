#ifndef EVROUTE_CUDEV_SHIM_H
#define EVROUTE_CUDEV_SHIM_H
#include <libudev.h>
#endif
