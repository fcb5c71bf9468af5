/*
 * Shared helpers of libdisni: exception raising and handle conversion.
 *
 * Handles exchanged with Java are raw C pointers widened to jlong (docs/native-abi.md §1.2); the IOException
 * message format of throw_io is part of the ABI (§1.3).
 * Only JNIEXPORT functions are visible outside the library (built with -fvisibility=hidden).
 */
#ifndef RDMAFUTURES_JNI_SUPPORT_H
#define RDMAFUTURES_JNI_SUPPORT_H

#include <jni.h>
#include <stdint.h>

#define PTR(type, handle) ((type *) (intptr_t) (handle))
#define HANDLE(pointer) ((jlong) (intptr_t) (pointer))

/* Throws java.io.IOException "<where>: <what>: <strerror(error)>"; error 0 omits the strerror part. */
void throw_io(JNIEnv *env, const char *where, const char *what, int error);

/* Sets O_NONBLOCK on fd; returns 0 or an errno value. */
int set_nonblocking(int fd);

/* Waits up to timeout_ms (negative: forever) for fd to become readable: 1 ready, 0 timed out, -errno. */
int wait_readable(int fd, int timeout_ms);

#endif
