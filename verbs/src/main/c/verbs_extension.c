/*
 * The calls DiSNI 2.1 lacks, as static natives of dev.rdmafutures.verbs.jni.NativeVerbs; their contract, record
 * layouts included, is docs/native-abi.md §6 (why each exists: §5). Convention (§6.1): >= 0 on success, negative
 * errno on failure, no exceptions; out-structures are little-endian and written in full (reserved bytes zeroed).
 * A change here changes that document, NativeVerbs and, for offsets Java uses, NativeLayout (§7).
 */
#define _GNU_SOURCE
#include "jni_support.h"

#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define EXTENSION(name) JNICALL Java_dev_rdmafutures_verbs_jni_NativeVerbs_##name

enum { CM_EVENT_INFO_SIZE = 304, DEVICE_INFO_SIZE = 136, QP_INFO_SIZE = 48,
       PORT_INFO_SIZE = 16, CM_ID_INFO_SIZE = 296 };

static void put_u8(uint8_t *base, int offset, uint8_t value) { base[offset] = value; }
static void put_u32(uint8_t *base, int offset, uint32_t value) { memcpy(base + offset, &value, sizeof value); }
static void put_u64(uint8_t *base, int offset, uint64_t value) { memcpy(base + offset, &value, sizeof value); }

/* --- Devices ----------------------------------------------------------------------------------------------- */

JNIEXPORT jint EXTENSION(getDevices)(JNIEnv *env, jclass type, jlong out, jint capacity) {
    int count = 0;
    struct ibv_context **contexts = rdma_get_devices(&count);
    if (contexts == NULL) {
        return -errno;
    }
    for (int i = 0; i < count && i < capacity; i++) {
        put_u64(PTR(uint8_t, out), i * 8, (uint64_t) HANDLE(contexts[i]));
    }
    rdma_free_devices(contexts);
    return count;
}

JNIEXPORT jint EXTENSION(deviceName)(JNIEnv *env, jclass type, jlong context, jlong out, jint capacity) {
    if (context == 0) {
        return -EINVAL;
    }
    const char *name = ibv_get_device_name(PTR(struct ibv_context, context)->device);
    if (name == NULL) {
        return -ENODEV;
    }
    int length = (int) strnlen(name, (size_t) capacity);
    memcpy(PTR(void, out), name, (size_t) length);
    return length;
}

JNIEXPORT jint EXTENSION(queryDevice)(JNIEnv *env, jclass type, jlong context, jlong out) {
    if (context == 0) {
        return -EINVAL;
    }
    struct ibv_context *verbs = PTR(struct ibv_context, context);
    struct ibv_device_attr_ex ex;
    int error = ibv_query_device_ex(verbs, NULL, &ex);
    if (error != 0) {
        return -error;
    }
    const struct ibv_device_attr *a = &ex.orig_attr;
    uint8_t *o = PTR(uint8_t, out);
    memset(o, 0, DEVICE_INFO_SIZE);
    put_u64(o, 0, a->node_guid);
    put_u64(o, 8, a->max_mr_size);
    put_u64(o, 16, a->page_size_cap);
    put_u64(o, 24, ex.odp_caps.general_caps);
    put_u32(o, 32, a->vendor_id);
    put_u32(o, 36, a->vendor_part_id);
    put_u32(o, 40, a->hw_ver);
    put_u32(o, 44, (uint32_t) a->max_qp);
    put_u32(o, 48, (uint32_t) a->max_qp_wr);
    put_u32(o, 52, a->device_cap_flags);
    put_u32(o, 56, (uint32_t) a->max_sge);
    put_u32(o, 60, (uint32_t) a->max_cq);
    put_u32(o, 64, (uint32_t) a->max_cqe);
    put_u32(o, 68, (uint32_t) a->max_mr);
    put_u32(o, 72, (uint32_t) a->max_pd);
    put_u32(o, 76, (uint32_t) a->max_qp_rd_atom);
    put_u32(o, 80, (uint32_t) a->max_qp_init_rd_atom);
    put_u32(o, 84, (uint32_t) a->max_res_rd_atom);
    put_u32(o, 88, (uint32_t) a->atomic_cap);
    put_u32(o, 92, (uint32_t) a->max_mw);
    put_u32(o, 96, (uint32_t) a->max_srq);
    put_u32(o, 100, (uint32_t) a->max_srq_wr);
    put_u32(o, 104, (uint32_t) a->max_srq_sge);
    put_u32(o, 108, ex.odp_caps.per_transport_caps.rc_odp_caps);
    put_u64(o, 112, ex.device_cap_flags_ex);
    put_u32(o, 120, verbs->device->transport_type == IBV_TRANSPORT_IWARP ? 1 : 0);
    put_u32(o, 124, a->phys_port_cnt);
    put_u32(o, 128, (uint32_t) a->max_sge_rd); /* DeviceInfo: docs/native-abi.md §6.2 */
    return 0;
}

JNIEXPORT jint EXTENSION(queryPort)(JNIEnv *env, jclass type, jlong context, jint port, jlong out) {
    if (context == 0) {
        return -EINVAL;
    }
    struct ibv_port_attr attr;
    int error = ibv_query_port(PTR(struct ibv_context, context), (uint8_t) port, &attr);
    if (error != 0) {
        return -error;
    }
    uint8_t *o = PTR(uint8_t, out);
    memset(o, 0, PORT_INFO_SIZE);
    put_u32(o, 0, attr.state);
    put_u32(o, 4, attr.active_mtu);
    put_u32(o, 8, attr.link_layer);
    put_u32(o, 12, (uint32_t) attr.gid_tbl_len);
    return 0;
}

/* --- Connection management --------------------------------------------------------------------------------- */

JNIEXPORT jint EXTENSION(setReuseAddr)(JNIEnv *env, jclass type, jlong id, jint enable) {
    if (id == 0) {
        return -EINVAL;
    }
    int value = enable;
    return rdma_set_option(PTR(struct rdma_cm_id, id), RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &value,
                           sizeof value) == 0 ? 0 : -errno;
}

JNIEXPORT jint EXTENSION(setAckTimeout)(JNIEnv *env, jclass type, jlong id, jint timeout) {
    if (id == 0 || timeout < 1 || timeout > 31) {
        return -EINVAL;
    }
    uint8_t value = (uint8_t) timeout;
    return rdma_set_option(PTR(struct rdma_cm_id, id), RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &value,
                           sizeof value) == 0 ? 0 : -errno;
}

static void conn_param(struct rdma_conn_param *param, jint responder, jint initiator, jint retry, jint rnr_retry,
                       jlong private_data, jint private_length, jint qp_num, jint srq) {
    memset(param, 0, sizeof *param);
    param->responder_resources = (uint8_t) responder;
    param->initiator_depth = (uint8_t) initiator;
    param->retry_count = (uint8_t) retry;
    param->rnr_retry_count = (uint8_t) rnr_retry;
    param->private_data = private_length > 0 ? PTR(void, private_data) : NULL;
    param->private_data_len = (uint8_t) (private_length > 0 ? private_length : 0);
    param->qp_num = (uint32_t) qp_num;
    param->srq = (uint8_t) (srq != 0);
}

static int valid_private_length(jlong address, jint length) {
    return length == 0 || (length > 0 && length <= 255 && address != 0);
}

/* qp_num and srq matter only without an attached QP (the two-phase path); librdmacm fills both in otherwise. */
JNIEXPORT jint EXTENSION(connect)(JNIEnv *env, jclass type, jlong id, jint responder, jint initiator, jint retry,
                                  jint rnr_retry, jlong private_data, jint private_length, jint qp_num, jint srq) {
    if (id == 0 || !valid_private_length(private_data, private_length)) {
        return -EINVAL;
    }
    struct rdma_conn_param param;
    conn_param(&param, responder, initiator, retry, rnr_retry, private_data, private_length, qp_num, srq);
    return rdma_connect(PTR(struct rdma_cm_id, id), &param) == 0 ? 0 : -errno;
}

JNIEXPORT jint EXTENSION(accept)(JNIEnv *env, jclass type, jlong id, jint responder, jint initiator,
                                 jint rnr_retry, jlong private_data, jint private_length, jint qp_num) {
    if (id == 0 || !valid_private_length(private_data, private_length)) {
        return -EINVAL;
    }
    struct rdma_conn_param param;
    conn_param(&param, responder, initiator, 0, rnr_retry, private_data, private_length, qp_num, 0);
    return rdma_accept(PTR(struct rdma_cm_id, id), &param) == 0 ? 0 : -errno;
}

JNIEXPORT jint EXTENSION(reject)(JNIEnv *env, jclass type, jlong id, jlong private_data, jint private_length) {
    if (id == 0 || !valid_private_length(private_data, private_length)) {
        return -EINVAL;
    }
    const void *data = private_length > 0 ? PTR(void, private_data) : NULL;
    return rdma_reject(PTR(struct rdma_cm_id, id), data, (uint8_t) private_length) == 0 ? 0 : -errno;
}

JNIEXPORT jint EXTENSION(establish)(JNIEnv *env, jclass type, jlong id) {
    if (id == 0) {
        return -EINVAL;
    }
    return rdma_establish(PTR(struct rdma_cm_id, id)) == 0 ? 0 : -errno;
}

JNIEXPORT jint EXTENSION(migrateId)(JNIEnv *env, jclass type, jlong id, jlong channel) {
    if (id == 0 || channel == 0) {
        return -EINVAL;
    }
    /* Returns at once: every event of the id was acknowledged when it was read (getCmEvent). */
    return rdma_migrate_id(PTR(struct rdma_cm_id, id), PTR(struct rdma_event_channel, channel)) == 0 ? 0 : -errno;
}

JNIEXPORT jint EXTENSION(getCmEvent)(JNIEnv *env, jclass type, jlong channel, jlong out, jint timeout) {
    if (channel == 0 || out == 0) {
        return -EINVAL;
    }
    struct rdma_event_channel *events = PTR(struct rdma_event_channel, channel);
    int ready = wait_readable(events->fd, timeout);
    if (ready <= 0) {
        return ready == 0 ? -EAGAIN : ready;
    }
    struct rdma_cm_event *event = NULL;
    if (rdma_get_cm_event(events, &event) != 0) {
        return -errno;
    }
    uint8_t *o = PTR(uint8_t, out);
    memset(o, 0, CM_EVENT_INFO_SIZE);
    put_u64(o, 0, event->id != NULL ? (uint64_t) HANDLE(event->id) : UINT64_MAX);
    put_u64(o, 8, event->listen_id != NULL ? (uint64_t) HANDLE(event->listen_id) : UINT64_MAX);
    put_u32(o, 16, (uint32_t) event->event);
    put_u32(o, 20, (uint32_t) event->status);
    int datagram = event->id != NULL && (event->id->ps == RDMA_PS_UDP || event->id->ps == RDMA_PS_IPOIB);
    const void *data;
    uint8_t length;
    if (datagram) {
        data = event->param.ud.private_data;
        length = event->param.ud.private_data_len;
        put_u8(o, 34, 1);
        put_u32(o, 36, event->param.ud.qp_num);
        put_u32(o, 40, event->param.ud.qkey);
    } else {
        const struct rdma_conn_param *conn = &event->param.conn;
        data = conn->private_data;
        length = conn->private_data_len;
        put_u8(o, 28, conn->responder_resources);
        put_u8(o, 29, conn->initiator_depth);
        put_u8(o, 30, conn->flow_control);
        put_u8(o, 31, conn->retry_count);
        put_u8(o, 32, conn->rnr_retry_count);
        put_u8(o, 33, conn->srq);
        put_u32(o, 36, conn->qp_num);
    }
    put_u32(o, 24, data != NULL ? length : 0);
    if (data != NULL && length > 0) {
        memcpy(o + 48, data, length); /* a uint8_t length always fits the 256-byte field */
    }
    int kind = (int) event->event;
    rdma_ack_cm_event(event);
    return kind;
}

JNIEXPORT jint EXTENSION(eventChannelFd)(JNIEnv *env, jclass type, jlong channel) {
    return channel == 0 ? -EINVAL : PTR(struct rdma_event_channel, channel)->fd;
}

static void put_address(uint8_t *o, int offset, const struct sockaddr *address) {
    size_t size = address->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
                : address->sa_family == AF_INET ? sizeof(struct sockaddr_in) : 0;
    memcpy(o + offset, address, size);
}

JNIEXPORT jint EXTENSION(getCmIdInfo)(JNIEnv *env, jclass type, jlong id, jlong out) {
    if (id == 0) {
        return -EINVAL;
    }
    struct rdma_cm_id *cm_id = PTR(struct rdma_cm_id, id);
    uint8_t *o = PTR(uint8_t, out);
    memset(o, 0, CM_ID_INFO_SIZE);
    put_u64(o, 0, (uint64_t) HANDLE(cm_id->verbs));
    put_u64(o, 8, (uint64_t) HANDLE(cm_id->qp));
    put_u64(o, 16, (uint64_t) HANDLE(cm_id->channel));
    put_u32(o, 24, (uint32_t) cm_id->ps);
    put_u32(o, 28, (uint32_t) cm_id->qp_type);
    put_u8(o, 32, cm_id->port_num);
    if (cm_id->verbs != NULL) {
        put_u8(o, 33, cm_id->verbs->device->transport_type == IBV_TRANSPORT_IWARP ? 1 : 0);
        struct ibv_port_attr port;
        if (cm_id->port_num != 0 && ibv_query_port(cm_id->verbs, cm_id->port_num, &port) == 0) {
            put_u8(o, 34, port.link_layer);
        }
    }
    put_address(o, 40, rdma_get_local_addr(cm_id));
    put_address(o, 168, rdma_get_peer_addr(cm_id));
    return 0;
}

/* --- Queue pairs ------------------------------------------------------------------------------------------- */

/*
 * The attributes of an RC QP with the given capabilities on send_cq/recv_cq, taking its receives from srq if it is
 * not 0 (then max_recv_wr and max_recv_sge are ignored). Selective signalling: sq_sig_all = 0.
 */
static void rc_attributes(struct ibv_qp_init_attr *attr, jlong send_cq, jlong recv_cq, jlong srq, jint max_send_wr,
                          jint max_recv_wr, jint max_send_sge, jint max_recv_sge, jint max_inline) {
    memset(attr, 0, sizeof *attr);
    attr->send_cq = PTR(struct ibv_cq, send_cq);
    attr->recv_cq = PTR(struct ibv_cq, recv_cq);
    attr->srq = PTR(struct ibv_srq, srq);
    attr->qp_type = IBV_QPT_RC;
    attr->cap.max_send_wr = (uint32_t) max_send_wr;
    attr->cap.max_recv_wr = (uint32_t) max_recv_wr;
    attr->cap.max_send_sge = (uint32_t) max_send_sge;
    attr->cap.max_recv_sge = (uint32_t) max_recv_sge;
    attr->cap.max_inline_data = (uint32_t) max_inline;
}

/* Writes the capabilities the provider granted as 5 x u32 in ibv_qp_cap order, if out_caps is given. */
static void granted_caps(const struct ibv_qp_cap *cap, jlong out_caps) {
    if (out_caps != 0) {
        uint8_t *o = PTR(uint8_t, out_caps);
        put_u32(o, 0, cap->max_send_wr);
        put_u32(o, 4, cap->max_recv_wr);
        put_u32(o, 8, cap->max_send_sge);
        put_u32(o, 12, cap->max_recv_sge);
        put_u32(o, 16, cap->max_inline_data);
    }
}

JNIEXPORT jlong EXTENSION(createQp)(JNIEnv *env, jclass type, jlong id, jlong pd, jlong send_cq, jlong recv_cq,
                                    jlong srq, jint max_send_wr, jint max_recv_wr, jint max_send_sge,
                                    jint max_recv_sge, jint max_inline, jlong out_caps) {
    if (id == 0 || pd == 0 || send_cq == 0 || recv_cq == 0) {
        return -EINVAL;
    }
    struct ibv_qp_init_attr attr;
    rc_attributes(&attr, send_cq, recv_cq, srq, max_send_wr, max_recv_wr, max_send_sge, max_recv_sge, max_inline);
    struct rdma_cm_id *cm_id = PTR(struct rdma_cm_id, id);
    if (rdma_create_qp(cm_id, PTR(struct ibv_pd, pd), &attr) != 0) {
        return -errno;
    }
    granted_caps(&attr.cap, out_caps);
    return HANDLE(cm_id->qp);
}

JNIEXPORT jlong EXTENSION(createQpDetached)(JNIEnv *env, jclass type, jlong pd, jlong send_cq, jlong recv_cq,
                                            jlong srq, jint max_send_wr, jint max_recv_wr, jint max_send_sge,
                                            jint max_recv_sge, jint max_inline, jlong out_caps) {
    if (pd == 0 || send_cq == 0 || recv_cq == 0) {
        return -EINVAL;
    }
    struct ibv_qp_init_attr attr;
    rc_attributes(&attr, send_cq, recv_cq, srq, max_send_wr, max_recv_wr, max_send_sge, max_recv_sge, max_inline);
    struct ibv_qp *qp = ibv_create_qp(PTR(struct ibv_pd, pd), &attr);
    if (qp == NULL) {
        return -errno;
    }
    granted_caps(&attr.cap, out_caps);
    return HANDLE(qp);
}

/* rdma_destroy_qp of the QP createQp attached to the id; before the id is destroyed. */
JNIEXPORT jint EXTENSION(destroyQp)(JNIEnv *env, jclass type, jlong id) {
    if (id == 0 || PTR(struct rdma_cm_id, id)->qp == NULL) {
        return -EINVAL;
    }
    rdma_destroy_qp(PTR(struct rdma_cm_id, id));
    return 0;
}

JNIEXPORT jint EXTENSION(destroyQpDetached)(JNIEnv *env, jclass type, jlong qp) {
    if (qp == 0) {
        return -EINVAL;
    }
    int error = ibv_destroy_qp(PTR(struct ibv_qp, qp));
    return error == 0 ? 0 : -error;
}

/*
 * Moves a QP the CM does not own to target_state with the attributes the CM computes for the connection
 * (rdma_init_qp_attr), overriding the read limit of that step (RTR: inbound, RTS: outbound; 255 = keep).
 * Mask bits 21-23 are cleared on InfiniBand ports, as librdmacm does for its own QPs.
 */
JNIEXPORT jint EXTENSION(modifyQpFromCm)(JNIEnv *env, jclass type, jlong id, jlong qp, jint target_state,
                                         jint read_limit) {
    if (id == 0 || qp == 0) {
        return -EINVAL;
    }
    struct rdma_cm_id *cm_id = PTR(struct rdma_cm_id, id);
    struct ibv_qp_attr attr;
    int mask = 0;
    memset(&attr, 0, sizeof attr);
    attr.qp_state = (enum ibv_qp_state) target_state;
    if (rdma_init_qp_attr(cm_id, &attr, &mask) != 0) {
        return -errno;
    }
    if (read_limit >= 0 && read_limit < 255) {
        if (target_state == IBV_QPS_RTR) {
            attr.max_dest_rd_atomic = (uint8_t) read_limit;
        } else if (target_state == IBV_QPS_RTS) {
            attr.max_rd_atomic = (uint8_t) read_limit;
        }
    }
    struct ibv_port_attr port;
    if (cm_id->verbs != NULL && ibv_query_port(cm_id->verbs, cm_id->port_num, &port) == 0
            && port.link_layer == IBV_LINK_LAYER_INFINIBAND) {
        mask &= ~0xe00000;
    }
    int error = ibv_modify_qp(PTR(struct ibv_qp, qp), &attr, mask);
    return error == 0 ? 0 : -error;
}

/*
 * Sets the RNR NAK timer of an RC QP in RTR or RTS (an optional attribute of RTR->RTS and RTS->RTS): the delay
 * (IB encoding, 1-31; 0 is 655.36 ms) this QP asks a sender to wait before retrying a Send that found no receive.
 * The IB CM sets 0 for every QP it moves to RTR, and userspace has no rdma_cm option for it.
 */
JNIEXPORT jint EXTENSION(setMinRnrTimer)(JNIEnv *env, jclass type, jlong qp, jint timer) {
    if (qp == 0 || timer < 0 || timer > 31) {
        return -EINVAL;
    }
    struct ibv_qp_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.min_rnr_timer = (uint8_t) timer;
    int error = ibv_modify_qp(PTR(struct ibv_qp, qp), &attr, IBV_QP_MIN_RNR_TIMER);
    return error == 0 ? 0 : -error;
}

JNIEXPORT jint EXTENSION(queryQp)(JNIEnv *env, jclass type, jlong qp, jlong out) {
    if (qp == 0) {
        return -EINVAL;
    }
    struct ibv_qp_attr attr;
    struct ibv_qp_init_attr init;
    int mask = IBV_QP_STATE | IBV_QP_CAP | IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_TIMEOUT
             | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MTU;
    int error = ibv_query_qp(PTR(struct ibv_qp, qp), &attr, mask, &init);
    if (error != 0) {
        return -error;
    }
    uint8_t *o = PTR(uint8_t, out);
    memset(o, 0, QP_INFO_SIZE);
    put_u32(o, 0, attr.qp_state);
    put_u32(o, 4, PTR(struct ibv_qp, qp)->qp_num);
    put_u32(o, 8, attr.cap.max_send_wr);
    put_u32(o, 12, attr.cap.max_recv_wr);
    put_u32(o, 16, attr.cap.max_send_sge);
    put_u32(o, 20, attr.cap.max_recv_sge);
    put_u32(o, 24, attr.cap.max_inline_data);
    put_u8(o, 28, attr.max_rd_atomic);
    put_u8(o, 29, attr.max_dest_rd_atomic);
    put_u8(o, 30, attr.timeout);
    put_u8(o, 31, attr.retry_cnt);
    put_u8(o, 32, attr.rnr_retry);
    put_u8(o, 33, attr.min_rnr_timer);
    put_u8(o, 34, (uint8_t) attr.path_mtu);
    put_u8(o, 35, (uint8_t) init.sq_sig_all);
    put_u32(o, 36, init.qp_type);
    return 0;
}

/* --- Data path --------------------------------------------------------------------------------------------- */

/*
 * ibv_post_send / ibv_post_recv / ibv_post_srq_recv of a list serialized by the caller (NativeLayout's SendRequest,
 * ReceiveRequest and Sge records, checked by layout below); on failure the 0-based index of the request the provider
 * refused goes to out_bad_index (those before it were posted).
 */
#define POST_LIST(name, target_type, wr_type, post)                                                         \
    JNIEXPORT jint EXTENSION(name)(JNIEnv *env, jclass type, jlong target, jlong list, jlong out_bad_index) { \
        if (target == 0 || list == 0) {                                                                   \
            return -EINVAL;                                                                               \
        }                                                                                                 \
        struct wr_type *first = PTR(struct wr_type, list), *bad = NULL;                                   \
        int error = post(PTR(struct target_type, target), first, &bad);                                   \
        if (error != 0 && out_bad_index != 0) {                                                           \
            uint32_t index = 0;                                                                           \
            for (struct wr_type *wr = first; wr != NULL && wr != bad; wr = wr->next) {                    \
                index++;                                                                                  \
            }                                                                                             \
            put_u32(PTR(uint8_t, out_bad_index), 0, index);                                               \
        }                                                                                                 \
        return -error;                                                                                    \
    }

POST_LIST(postSend, ibv_qp, ibv_send_wr, ibv_post_send)
POST_LIST(postRecv, ibv_qp, ibv_recv_wr, ibv_post_recv)
POST_LIST(postSrqRecv, ibv_srq, ibv_recv_wr, ibv_post_srq_recv)

/*
 * The layout this library was compiled against, for NativeLayout's check: u32 values in this order, returns their
 * count. sizeof/offsetof of ibv_send_wr (size, wr_id, next, sg_list, num_sge, opcode, send_flags, invalidate_rkey,
 * wr.rdma.remote_addr, wr.rdma.rkey), of ibv_recv_wr (size, wr_id, next, sg_list, num_sge), of ibv_sge (size,
 * addr, length, lkey), then IBV_WR_RDMA_WRITE, IBV_WR_SEND, IBV_WR_RDMA_READ, IBV_WR_SEND_WITH_INV, IBV_SEND_FENCE,
 * IBV_SEND_SIGNALED, IBV_WC_WITH_INV, IBV_EVENT_SRQ_ERR, IBV_EVENT_SRQ_LIMIT_REACHED; then the memory-window parts:
 * offsetof ibv_send_wr's bind_mw.mw, bind_mw.rkey, bind_mw.bind_info.mr, .addr, .length, .mw_access_flags,
 * IBV_WR_LOCAL_INV, IBV_WR_BIND_MW, offsetof(struct ibv_mw, rkey).
 */
JNIEXPORT jint EXTENSION(layout)(JNIEnv *env, jclass type, jlong out, jint capacity) {
    static const uint32_t values[] = {
        sizeof(struct ibv_send_wr), offsetof(struct ibv_send_wr, wr_id), offsetof(struct ibv_send_wr, next),
        offsetof(struct ibv_send_wr, sg_list), offsetof(struct ibv_send_wr, num_sge),
        offsetof(struct ibv_send_wr, opcode), offsetof(struct ibv_send_wr, send_flags),
        offsetof(struct ibv_send_wr, invalidate_rkey), offsetof(struct ibv_send_wr, wr.rdma.remote_addr),
        offsetof(struct ibv_send_wr, wr.rdma.rkey),
        sizeof(struct ibv_recv_wr), offsetof(struct ibv_recv_wr, wr_id), offsetof(struct ibv_recv_wr, next),
        offsetof(struct ibv_recv_wr, sg_list), offsetof(struct ibv_recv_wr, num_sge),
        sizeof(struct ibv_sge), offsetof(struct ibv_sge, addr), offsetof(struct ibv_sge, length),
        offsetof(struct ibv_sge, lkey),
        IBV_WR_RDMA_WRITE, IBV_WR_SEND, IBV_WR_RDMA_READ, IBV_WR_SEND_WITH_INV, IBV_SEND_FENCE, IBV_SEND_SIGNALED,
        IBV_WC_WITH_INV, IBV_EVENT_SRQ_ERR, IBV_EVENT_SRQ_LIMIT_REACHED,
        offsetof(struct ibv_send_wr, bind_mw.mw), offsetof(struct ibv_send_wr, bind_mw.rkey),
        offsetof(struct ibv_send_wr, bind_mw.bind_info.mr), offsetof(struct ibv_send_wr, bind_mw.bind_info.addr),
        offsetof(struct ibv_send_wr, bind_mw.bind_info.length),
        offsetof(struct ibv_send_wr, bind_mw.bind_info.mw_access_flags),
        IBV_WR_LOCAL_INV, IBV_WR_BIND_MW, offsetof(struct ibv_mw, rkey),
        sizeof(struct ibv_wc), offsetof(struct ibv_wc, wr_id), offsetof(struct ibv_wc, status),
        offsetof(struct ibv_wc, vendor_err), offsetof(struct ibv_wc, byte_len), offsetof(struct ibv_wc, imm_data),
        offsetof(struct ibv_wc, qp_num), offsetof(struct ibv_wc, wc_flags),
    };
    int count = (int) (sizeof values / sizeof values[0]);
    if (out == 0 || capacity < count) {
        return -EINVAL;
    }
    for (int i = 0; i < count; i++) {
        put_u32(PTR(uint8_t, out), i * 4, values[i]);
    }
    return count;
}

/* --- Memory windows ---------------------------------------------------------------------------------------- */

/*
 * ibv_alloc_mw of a type-2 window (bound through IBV_WR_BIND_MW on one QP): the handle or -errno (EOPNOTSUPP where
 * the device binds none, as siw).
 */
JNIEXPORT jlong EXTENSION(allocMw)(JNIEnv *env, jclass type, jlong pd) {
    if (pd == 0) {
        return -EINVAL;
    }
    errno = 0;
    struct ibv_mw *mw = ibv_alloc_mw(PTR(struct ibv_pd, pd), IBV_MW_TYPE_2);
    if (mw == NULL) {
        return errno != 0 ? -errno : -EOPNOTSUPP;
    }
    return HANDLE(mw);
}

JNIEXPORT jint EXTENSION(deallocMw)(JNIEnv *env, jclass type, jlong mw) {
    if (mw == 0) {
        return -EINVAL;
    }
    int error = ibv_dealloc_mw(PTR(struct ibv_mw, mw));
    return error == 0 ? 0 : -error;
}

/* The window's current rkey, as ibv_alloc_mw or the last mwSetRkey left it. */
JNIEXPORT jlong EXTENSION(mwRkey)(JNIEnv *env, jclass type, jlong mw) {
    return mw == 0 ? -EINVAL : (jlong) PTR(struct ibv_mw, mw)->rkey;
}

/*
 * Records the rkey a posted IBV_WR_BIND_MW gives the window: libibverbs leaves that to the application for type-2
 * windows, and the provider names the current rkey in the next bind.
 */
JNIEXPORT jint EXTENSION(mwSetRkey)(JNIEnv *env, jclass type, jlong mw, jint rkey) {
    if (mw == 0) {
        return -EINVAL;
    }
    PTR(struct ibv_mw, mw)->rkey = (uint32_t) rkey;
    return 0;
}

/* --- Shared receive queues --------------------------------------------------------------------------------- */

/* ibv_create_srq of max_wr receives of up to max_sge segments, limit disarmed: the handle or -errno. */
JNIEXPORT jlong EXTENSION(createSrq)(JNIEnv *env, jclass type, jlong pd, jint max_wr, jint max_sge) {
    if (pd == 0 || max_wr < 1 || max_sge < 0) {
        return -EINVAL;
    }
    struct ibv_srq_init_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.attr.max_wr = (uint32_t) max_wr;
    attr.attr.max_sge = (uint32_t) max_sge;
    struct ibv_srq *srq = ibv_create_srq(PTR(struct ibv_pd, pd), &attr);
    return srq != NULL ? HANDLE(srq) : -errno;
}

JNIEXPORT jint EXTENSION(destroySrq)(JNIEnv *env, jclass type, jlong srq) {
    if (srq == 0) {
        return -EINVAL;
    }
    int error = ibv_destroy_srq(PTR(struct ibv_srq, srq));
    return error == 0 ? 0 : -error;
}

/*
 * ibv_modify_srq with IBV_SRQ_LIMIT: the device raises IBV_EVENT_SRQ_LIMIT_REACHED once, as soon as fewer than
 * limit receives remain, and disarms; 0 disarms now.
 */
JNIEXPORT jint EXTENSION(modifySrqLimit)(JNIEnv *env, jclass type, jlong srq, jint limit) {
    if (srq == 0 || limit < 0) {
        return -EINVAL;
    }
    struct ibv_srq_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.srq_limit = (uint32_t) limit;
    int error = ibv_modify_srq(PTR(struct ibv_srq, srq), &attr, IBV_SRQ_LIMIT);
    return error == 0 ? 0 : -error;
}

/*
 * Reads up to `capacity` completion events waiting on the channel, acknowledging each at once: writes the handles of
 * the CQs that fired (u64 each) to `out` and returns their count, or -errno when the first read failed. The channel
 * is non-blocking (createCompChannel), so a read finding no event ends the call with EAGAIN, and no poll(2) comes
 * before each read: the caller's wait found the channel readable already, and asks for no more events than it has
 * CQs armed, so a loop with one CQ reads once.
 */
JNIEXPORT jint EXTENSION(getCqEvents)(JNIEnv *env, jclass type, jlong channel, jlong out, jint capacity) {
    if (channel == 0 || out == 0 || capacity <= 0) {
        return -EINVAL;
    }
    struct ibv_comp_channel *events = PTR(struct ibv_comp_channel, channel);
    int count = 0;
    while (count < capacity) {
        struct ibv_cq *cq;
        void *context;
        if (ibv_get_cq_event(events, &cq, &context) != 0) {
            int error = errno;
            if (count > 0 || error == EAGAIN || error == EWOULDBLOCK) {
                break;
            }
            return -(error != 0 ? error : EIO);
        }
        ibv_ack_cq_events(cq, 1);
        put_u64(PTR(uint8_t, out), count * 8, (uint64_t) HANDLE(cq));
        count++;
    }
    return count;
}

/*
 * ibv_poll_cq into an array of `capacity` struct ibv_wc at `out`: the count, or -errno. Unlike DiSNI's IbvWC, which
 * reads a failed completion's qp_num and vendor_err from the completion before it, Java reads every field itself.
 */
JNIEXPORT jint EXTENSION(pollCq)(JNIEnv *env, jclass type, jlong cq, jint capacity, jlong out) {
    if (cq == 0 || out == 0 || capacity <= 0) {
        return -EINVAL;
    }
    int polled = ibv_poll_cq(PTR(struct ibv_cq, cq), capacity, PTR(struct ibv_wc, out));
    return polled >= 0 ? polled : (errno != 0 ? -errno : -EIO);
}

JNIEXPORT jint EXTENSION(compChannelFd)(JNIEnv *env, jclass type, jlong channel) {
    return channel == 0 ? -EINVAL : PTR(struct ibv_comp_channel, channel)->fd;
}

JNIEXPORT jint EXTENSION(asyncEventFd)(JNIEnv *env, jclass type, jlong context) {
    if (context == 0) {
        return -EINVAL;
    }
    struct ibv_context *verbs = PTR(struct ibv_context, context);
    int error = set_nonblocking(verbs->async_fd);
    return error != 0 ? -error : verbs->async_fd;
}

JNIEXPORT jint EXTENSION(getAsyncEvent)(JNIEnv *env, jclass type, jlong context, jlong out, jint timeout) {
    if (context == 0) {
        return -EINVAL;
    }
    struct ibv_context *verbs = PTR(struct ibv_context, context);
    int error = set_nonblocking(verbs->async_fd);
    if (error != 0) {
        return -error;
    }
    int ready = wait_readable(verbs->async_fd, timeout);
    if (ready <= 0) {
        return ready == 0 ? -EAGAIN : ready;
    }
    struct ibv_async_event event;
    if (ibv_get_async_event(verbs, &event) != 0) {
        return -errno;
    }
    uint8_t *o = PTR(uint8_t, out);
    memset(o, 0, 16);
    put_u32(o, 0, event.event_type);
    switch (event.event_type) {
    case IBV_EVENT_PORT_ACTIVE:
    case IBV_EVENT_PORT_ERR:
    case IBV_EVENT_LID_CHANGE:
    case IBV_EVENT_PKEY_CHANGE:
    case IBV_EVENT_SM_CHANGE:
    case IBV_EVENT_CLIENT_REREGISTER:
    case IBV_EVENT_GID_CHANGE:
        put_u32(o, 4, (uint32_t) event.element.port_num);
        break;
    case IBV_EVENT_CQ_ERR:
        put_u64(o, 8, (uint64_t) HANDLE(event.element.cq));
        break;
    case IBV_EVENT_SRQ_ERR:
    case IBV_EVENT_SRQ_LIMIT_REACHED:
        put_u64(o, 8, (uint64_t) HANDLE(event.element.srq));
        break;
    case IBV_EVENT_DEVICE_FATAL:
        break;
    default:
        put_u64(o, 8, (uint64_t) HANDLE(event.element.qp));
        break;
    }
    int kind = (int) event.event_type;
    ibv_ack_async_event(&event);
    return kind;
}

/* --- Waiting: one blocking point for CM channels, completion channels and a wake-up eventfd ----------------- */

JNIEXPORT jint EXTENSION(createWakeup)(JNIEnv *env, jclass type) {
    int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    return fd >= 0 ? fd : -errno;
}

JNIEXPORT jint EXTENSION(signalWakeup)(JNIEnv *env, jclass type, jint fd) {
    uint64_t one = 1;
    ssize_t written = write(fd, &one, sizeof one);
    return written == sizeof one || errno == EAGAIN ? 0 : -errno;
}

JNIEXPORT jint EXTENSION(drainWakeup)(JNIEnv *env, jclass type, jint fd) {
    uint64_t count;
    ssize_t got = read(fd, &count, sizeof count);
    return got == sizeof count ? 1 : (errno == EAGAIN ? 0 : -errno);
}

JNIEXPORT jint EXTENSION(closeFd)(JNIEnv *env, jclass type, jint fd) {
    return close(fd) == 0 ? 0 : -errno;
}

/* pollfds points at count struct pollfd entries (8 bytes: fd, events, revents) laid out by Java. */
JNIEXPORT jint EXTENSION(pollFds)(JNIEnv *env, jclass type, jlong pollfds, jint count, jint timeout) {
    if (pollfds == 0 || count < 0) {
        return -EINVAL;
    }
    int ready = poll(PTR(struct pollfd, pollfds), (nfds_t) count, timeout);
    return ready >= 0 ? ready : (errno == EINTR ? 0 : -errno);
}
