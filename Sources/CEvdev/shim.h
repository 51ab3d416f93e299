#ifndef EVROUTE_CEVDEV_SHIM_H
#define EVROUTE_CEVDEV_SHIM_H
#include <libevdev/libevdev.h>
#include <linux/input.h>
#endif
