#define _GNU_SOURCE
#include "jni_support.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

void throw_io(JNIEnv *env, const char *where, const char *what, int error) {
    char message[256];
    if (error != 0) {
        char reason[128];
        const char *text = strerror_r(error, reason, sizeof reason);
        snprintf(message, sizeof message, "%s: %s: %s (errno %d)", where, what, text, error);
    } else {
        snprintf(message, sizeof message, "%s: %s", where, what);
    }
    jclass io = (*env)->FindClass(env, "java/io/IOException");
    if (io != NULL) {
        (*env)->ThrowNew(env, io, message);
    }
}

int set_nonblocking(int fd) {
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
        return errno;
    }
    return 0;
}

int wait_readable(int fd, int timeout_ms) {
    struct pollfd entry = { .fd = fd, .events = POLLIN };
    int ready;
    do {
        ready = poll(&entry, 1, timeout_ms);
    } while (ready < 0 && errno == EINTR);
    if (ready < 0) {
        return -errno;
    }
    return ready > 0 ? 1 : 0;
}
