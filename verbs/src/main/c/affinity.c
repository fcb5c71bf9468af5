/*
 * The natives of DiSNI 2.1's com.ibm.disni.util.NativeAffinity: CPU masks of the calling thread (CPUs 0..63);
 * docs/native-abi.md §3.5.
 */
#define _GNU_SOURCE
#include "jni_support.h"

#include <sched.h>

JNIEXPORT void JNICALL Java_com_ibm_disni_util_NativeAffinity__1setAffinity(JNIEnv *env, jclass type, jlong mask) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu = 0; cpu < 64; cpu++) {
        if (((uint64_t) mask >> cpu) & 1) {
            CPU_SET(cpu, &set);
        }
    }
    sched_setaffinity(0, sizeof set, &set); /* the contract ignores errors: pinning is a hint */
}

JNIEXPORT jlong JNICALL Java_com_ibm_disni_util_NativeAffinity__1getAffinity(JNIEnv *env, jclass type) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        return ~0LL;
    }
    uint64_t mask = 0;
    for (int cpu = 0; cpu < 64; cpu++) {
        if (CPU_ISSET(cpu, &set)) {
            mask |= (uint64_t) 1 << cpu;
        }
    }
    return (jlong) mask;
}
