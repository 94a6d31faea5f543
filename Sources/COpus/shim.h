#ifndef COPUS_SHIM_H
#define COPUS_SHIM_H
#include <opus.h>
#include <opusenc.h>
#include <opusfile.h>
#include <ogg/ogg.h>
#endif
