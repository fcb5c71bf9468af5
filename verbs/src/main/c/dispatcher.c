/*
 * The natives of DiSNI 2.1's com.ibm.disni.verbs.impl.NativeDispatcher (ABI version 32); their contract is
 * docs/native-abi.md §1-§4 (each native: §3): handles are pointers, creators throw IOException and return -1,
 * CM events are acknowledged before _getCmEvent returns (§4.2).
 */
#define _GNU_SOURCE
#include "jni_support.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define DISPATCHER(name) JNICALL Java_com_ibm_disni_verbs_impl_NativeDispatcher__1##name
#define JVERBS_VERSION 32

/* Copies an IPv4 socket address written by Java (sin_zero left stale) into a clean one; other families as is. */
static struct sockaddr *clean_address(jlong address, struct sockaddr_in *scratch) {
    struct sockaddr *given = PTR(struct sockaddr, address);
    if (given->sa_family != AF_INET) {
        return given;
    }
    const struct sockaddr_in *in = (const struct sockaddr_in *) given;
    memset(scratch, 0, sizeof *scratch);
    scratch->sin_family = AF_INET;
    scratch->sin_port = in->sin_port;
    scratch->sin_addr = in->sin_addr;
    return (struct sockaddr *) scratch;
}

/* --- RDMA CM ----------------------------------------------------------------------------------------------- */

JNIEXPORT jlong DISPATCHER(createEventChannel)(JNIEnv *env, jobject self) {
    struct rdma_event_channel *channel = rdma_create_event_channel();
    if (channel == NULL) {
        throw_io(env, "_createEventChannel", "rdma_create_event_channel failed", errno);
        return -1;
    }
    int error = set_nonblocking(channel->fd);
    if (error != 0) {
        rdma_destroy_event_channel(channel);
        throw_io(env, "_createEventChannel", "fcntl(O_NONBLOCK) failed", error);
        return -1;
    }
    return HANDLE(channel);
}

static enum rdma_port_space port_space(jshort requested) {
    switch ((unsigned short) requested) {
    case RDMA_PS_UDP:
    case RDMA_PS_IPOIB:
    case RDMA_PS_IB:
        return (enum rdma_port_space) (unsigned short) requested;
    default:
        return RDMA_PS_TCP;
    }
}

JNIEXPORT jlong DISPATCHER(createId)(JNIEnv *env, jobject self, jlong channel, jshort ps) {
    if (channel == 0) {
        throw_io(env, "_createId", "channel null", 0);
        return -1;
    }
    struct rdma_cm_id *id = NULL;
    if (rdma_create_id(PTR(struct rdma_event_channel, channel), &id, NULL, port_space(ps)) != 0) {
        throw_io(env, "_createId", "rdma_create_id failed", errno);
        return -1;
    }
    return HANDLE(id);
}

JNIEXPORT jlong DISPATCHER(createQP)(JNIEnv *env, jobject self, jlong id, jlong pd, jlong sendcq, jlong recvcq,
                                     jint qptype, jint maxsendwr, jint maxrecvwr, jint maxinline) {
    if (id == 0 || pd == 0 || sendcq == 0 || recvcq == 0) {
        throw_io(env, "_createQP", "id, pd or cq null", 0);
        return -1;
    }
    struct ibv_qp_init_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.send_cq = PTR(struct ibv_cq, sendcq);
    attr.recv_cq = PTR(struct ibv_cq, recvcq);
    attr.qp_type = (enum ibv_qp_type) qptype;
    attr.cap.max_send_wr = (uint32_t) maxsendwr;
    attr.cap.max_recv_wr = (uint32_t) maxrecvwr;
    attr.cap.max_inline_data = (uint32_t) maxinline;
    attr.cap.max_send_sge = 4;
    attr.cap.max_recv_sge = 4;
    attr.sq_sig_all = 0;
    struct rdma_cm_id *cm_id = PTR(struct rdma_cm_id, id);
    errno = 0; /* libsiw fails some mappings without setting errno: report none rather than a stale one */
    if (rdma_create_qp(cm_id, PTR(struct ibv_pd, pd), &attr) != 0) {
        throw_io(env, "_createQP", errno != 0 ? "rdma_create_qp failed" : "rdma_create_qp failed, no errno given",
                 errno);
        return -1;
    }
    return HANDLE(cm_id->qp);
}

JNIEXPORT void DISPATCHER(bindAddr)(JNIEnv *env, jobject self, jlong id, jlong address) {
    if (id == 0 || address == 0) {
        throw_io(env, "_bindAddr", "id or address null", 0);
        return;
    }
    struct sockaddr_in scratch;
    if (rdma_bind_addr(PTR(struct rdma_cm_id, id), clean_address(address, &scratch)) != 0) {
        throw_io(env, "_bindAddr", "rdma_bind_addr failed", errno);
    }
}

JNIEXPORT void DISPATCHER(listen)(JNIEnv *env, jobject self, jlong id, jint backlog) {
    if (id == 0) {
        throw_io(env, "_listen", "id null", 0);
        return;
    }
    if (rdma_listen(PTR(struct rdma_cm_id, id), backlog) != 0) {
        throw_io(env, "_listen", "rdma_listen failed", errno);
    }
}

JNIEXPORT void DISPATCHER(resolveAddr)(JNIEnv *env, jobject self, jlong id, jlong src, jlong dst, jint timeout) {
    if (id == 0 || dst == 0) {
        throw_io(env, "_resolveAddr", "id or destination null", 0);
        return;
    }
    struct sockaddr_in source_scratch, destination_scratch;
    struct sockaddr *source = src != 0 ? clean_address(src, &source_scratch) : NULL;
    if (rdma_resolve_addr(PTR(struct rdma_cm_id, id), source, clean_address(dst, &destination_scratch), timeout) != 0) {
        throw_io(env, "_resolveAddr", "rdma_resolve_addr failed", errno);
    }
}

JNIEXPORT void DISPATCHER(resolveRoute)(JNIEnv *env, jobject self, jlong id, jint timeout) {
    if (id == 0) {
        throw_io(env, "_resolveRoute", "id null", 0);
        return;
    }
    if (rdma_resolve_route(PTR(struct rdma_cm_id, id), timeout) != 0) {
        throw_io(env, "_resolveRoute", "rdma_resolve_route failed", errno);
    }
}

JNIEXPORT jint DISPATCHER(getCmEvent)(JNIEnv *env, jobject self, jlong channel, jlong listenid, jlong clientid,
                                      jint timeout) {
    if (channel == 0 || listenid == 0 || clientid == 0) {
        return -1;
    }
    struct rdma_event_channel *events = PTR(struct rdma_event_channel, channel);
    if (wait_readable(events->fd, timeout) <= 0) {
        return -1;
    }
    struct rdma_cm_event *event = NULL;
    if (rdma_get_cm_event(events, &event) != 0) {
        return -1;
    }
    *PTR(int64_t, listenid) = event->listen_id != NULL ? HANDLE(event->listen_id) : -1;
    *PTR(int64_t, clientid) = event->id != NULL ? HANDLE(event->id) : -1;
    int type = (int) event->event;
    rdma_ack_cm_event(event);
    return type;
}

/* Device read limits for a connect or accept as DiSNI asks for them: the device maxima, narrowed to 8 bits. */
static int device_read_limits(struct rdma_cm_id *id, struct rdma_conn_param *param) {
    struct ibv_device_attr attr;
    int error = ibv_query_device(id->verbs, &attr);
    if (error != 0) {
        return error;
    }
    param->responder_resources = (uint8_t) (attr.max_qp_rd_atom > 255 ? 255 : attr.max_qp_rd_atom);
    param->initiator_depth = (uint8_t) (attr.max_qp_init_rd_atom > 255 ? 255 : attr.max_qp_init_rd_atom);
    return 0;
}

JNIEXPORT void DISPATCHER(connect)(JNIEnv *env, jobject self, jlong id, jint retrycount, jint rnrretrycount,
                                   jlong privdataaddr, jbyte privdatalen) {
    struct rdma_cm_id *cm_id = PTR(struct rdma_cm_id, id);
    if (cm_id == NULL || cm_id->verbs == NULL) {
        throw_io(env, "_connect", "id null or its route not resolved", 0);
        return;
    }
    struct rdma_conn_param param;
    memset(&param, 0, sizeof param);
    int error = device_read_limits(cm_id, &param);
    if (error != 0) {
        throw_io(env, "_connect", "ibv_query_device failed", error);
        return;
    }
    param.retry_count = (uint8_t) retrycount;
    param.rnr_retry_count = (uint8_t) rnrretrycount;
    param.private_data = privdataaddr != 0 ? PTR(void, privdataaddr) : NULL;
    param.private_data_len = privdataaddr != 0 ? (uint8_t) privdatalen : 0;
    if (rdma_connect(cm_id, &param) != 0) {
        throw_io(env, "_connect", "rdma_connect failed", errno);
    }
}

JNIEXPORT void DISPATCHER(accept)(JNIEnv *env, jobject self, jlong id, jint retrycount, jint rnrretrycount) {
    struct rdma_cm_id *cm_id = PTR(struct rdma_cm_id, id);
    if (cm_id == NULL || cm_id->verbs == NULL) {
        throw_io(env, "_accept", "id null or not bound to a device", 0);
        return;
    }
    struct rdma_conn_param param;
    memset(&param, 0, sizeof param);
    param.responder_resources = RDMA_MAX_RESP_RES;
    param.initiator_depth = RDMA_MAX_INIT_DEPTH;
    param.retry_count = (uint8_t) retrycount;
    param.rnr_retry_count = (uint8_t) rnrretrycount;
    if (rdma_accept(cm_id, &param) != 0) {
        throw_io(env, "_accept", "rdma_accept failed", errno);
    }
}

JNIEXPORT jint DISPATCHER(ackCmEvent)(JNIEnv *env, jobject self, jint event) {
    return 0; /* acknowledged inside _getCmEvent: Java passes only the type, which cannot identify the event */
}

JNIEXPORT jint DISPATCHER(disconnect)(JNIEnv *env, jobject self, jlong id) {
    if (id == 0) {
        throw_io(env, "_disconnect", "id null", 0);
        return -1;
    }
    return rdma_disconnect(PTR(struct rdma_cm_id, id));
}

JNIEXPORT jint DISPATCHER(destroyEventChannel)(JNIEnv *env, jobject self, jlong channel) {
    if (channel == 0) {
        return -1;
    }
    rdma_destroy_event_channel(PTR(struct rdma_event_channel, channel));
    return 0;
}

JNIEXPORT jint DISPATCHER(destroyCmId)(JNIEnv *env, jobject self, jlong id) {
    if (id == 0) {
        return -1;
    }
    return rdma_destroy_id(PTR(struct rdma_cm_id, id));
}

JNIEXPORT jint DISPATCHER(destroyQP)(JNIEnv *env, jobject self, jlong id) {
    struct rdma_cm_id *cm_id = PTR(struct rdma_cm_id, id);
    if (cm_id == NULL || cm_id->qp == NULL) {
        return -1;
    }
    rdma_destroy_qp(cm_id);
    return 0;
}

static jint copy_address(struct sockaddr *from, jlong to) {
    memcpy(PTR(void, to), from, sizeof(struct sockaddr));
    return 0;
}

JNIEXPORT jint DISPATCHER(getSrcAddr)(JNIEnv *env, jobject self, jlong id, jlong address) {
    if (id == 0 || address == 0) {
        return -1;
    }
    return copy_address(rdma_get_local_addr(PTR(struct rdma_cm_id, id)), address);
}

JNIEXPORT jint DISPATCHER(getDstAddr)(JNIEnv *env, jobject self, jlong id, jlong address) {
    if (id == 0 || address == 0) {
        return -1;
    }
    return copy_address(rdma_get_peer_addr(PTR(struct rdma_cm_id, id)), address);
}

JNIEXPORT jint DISPATCHER(destroyEp)(JNIEnv *env, jobject self, jlong id) {
    if (id == 0) {
        return -1;
    }
    rdma_destroy_ep(PTR(struct rdma_cm_id, id));
    return 0;
}

/* --- Verbs ------------------------------------------------------------------------------------------------- */

JNIEXPORT jlong DISPATCHER(allocPd)(JNIEnv *env, jobject self, jlong context) {
    if (context == 0) {
        throw_io(env, "_allocPd", "context null", 0);
        return -1;
    }
    struct ibv_pd *pd = ibv_alloc_pd(PTR(struct ibv_context, context));
    if (pd == NULL) {
        throw_io(env, "_allocPd", "ibv_alloc_pd failed", errno);
        return -1;
    }
    return HANDLE(pd);
}

JNIEXPORT jlong DISPATCHER(createCompChannel)(JNIEnv *env, jobject self, jlong context) {
    if (context == 0) {
        throw_io(env, "_createCompChannel", "context null", 0);
        return -1;
    }
    struct ibv_comp_channel *channel = ibv_create_comp_channel(PTR(struct ibv_context, context));
    if (channel == NULL) {
        throw_io(env, "_createCompChannel", "ibv_create_comp_channel failed", errno);
        return -1;
    }
    int error = set_nonblocking(channel->fd);
    if (error != 0) {
        ibv_destroy_comp_channel(channel);
        throw_io(env, "_createCompChannel", "fcntl(O_NONBLOCK) failed", error);
        return -1;
    }
    return HANDLE(channel);
}

JNIEXPORT jlong DISPATCHER(createCQ)(JNIEnv *env, jobject self, jlong context, jlong channel, jint ncqe,
                                     jint vector) {
    if (context == 0 || channel == 0) {
        throw_io(env, "_createCQ", "context or channel null", 0);
        return -1;
    }
    errno = 0; /* as in createQP: no stale errno in the report */
    struct ibv_cq *cq = ibv_create_cq(PTR(struct ibv_context, context), ncqe, NULL,
                                      PTR(struct ibv_comp_channel, channel), vector);
    if (cq == NULL) {
        throw_io(env, "_createCQ", errno != 0 ? "ibv_create_cq failed" : "ibv_create_cq failed, no errno given",
                 errno);
        return -1;
    }
    return HANDLE(cq);
}

JNIEXPORT jint DISPATCHER(modifyQP)(JNIEnv *env, jobject self, jlong qp, jlong attr) {
    if (qp == 0) {
        throw_io(env, "_modifyQP", "qp null", 0);
        return -1;
    }
    if (attr != 0) {
        throw_io(env, "_modifyQP", "attributes are not supported", 0);
        return -1;
    }
    return 0; /* DiSNI always passes no attributes: nothing to change */
}

JNIEXPORT jlong DISPATCHER(regMr)(JNIEnv *env, jobject self, jlong pd, jlong address, jint length, jint access,
                                  jlong lkey, jlong rkey, jlong handle) {
    if (pd == 0 || lkey == 0 || rkey == 0 || handle == 0) {
        throw_io(env, "_regMr", "pd or output null", 0);
        return -1;
    }
    if (length < 0) {
        throw_io(env, "_regMr", "negative length", 0);
        return -1;
    }
    struct ibv_mr *mr = ibv_reg_mr(PTR(struct ibv_pd, pd), PTR(void, address), (size_t) length, access);
    if (mr == NULL) {
        throw_io(env, "_regMr", "ibv_reg_mr failed", errno);
        return -1;
    }
    *PTR(uint32_t, lkey) = mr->lkey;
    *PTR(uint32_t, rkey) = mr->rkey;
    *PTR(uint32_t, handle) = mr->handle;
    return HANDLE(mr);
}

JNIEXPORT jint DISPATCHER(queryOdpSupport)(JNIEnv *env, jobject self, jlong context) {
    if (context == 0) {
        return -1;
    }
    struct ibv_device_attr_ex attr;
    if (ibv_query_device_ex(PTR(struct ibv_context, context), NULL, &attr) != 0) {
        return -1;
    }
    if ((attr.odp_caps.general_caps & IBV_ODP_SUPPORT) == 0) {
        return -1;
    }
    return (jint) attr.odp_caps.per_transport_caps.rc_odp_caps;
}

JNIEXPORT jint DISPATCHER(expPrefetchMr)(JNIEnv *env, jobject self, jlong handle, jlong address, jint length) {
    struct ibv_mr *mr = PTR(struct ibv_mr, handle);
    if (mr == NULL) {
        return -1;
    }
    struct ibv_sge range = { .addr = (uint64_t) address, .length = (uint32_t) length, .lkey = mr->lkey };
    int error = ibv_advise_mr(mr->pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, IBV_ADVISE_MR_FLAG_FLUSH, &range, 1);
    if (error == 0) {
        return 0;
    }
    if (error == EOPNOTSUPP || error == ENOSYS) {
        return -1;
    }
    throw_io(env, "_expPrefetchMr", "ibv_advise_mr failed", error);
    return -1;
}

JNIEXPORT void DISPATCHER(deregMr)(JNIEnv *env, jobject self, jlong handle) {
    if (handle == 0) {
        throw_io(env, "_deregMr", "mr null", 0);
        return;
    }
    int error = ibv_dereg_mr(PTR(struct ibv_mr, handle));
    if (error != 0) {
        throw_io(env, "_deregMr", "ibv_dereg_mr failed", error);
    }
}

JNIEXPORT void DISPATCHER(postSend)(JNIEnv *env, jobject self, jlong qp, jlong wrlist) {
    if (qp == 0 || wrlist == 0) {
        throw_io(env, "_postSend", "qp or list null", 0);
        return;
    }
    struct ibv_send_wr *bad = NULL;
    int error = ibv_post_send(PTR(struct ibv_qp, qp), PTR(struct ibv_send_wr, wrlist), &bad);
    if (error != 0) {
        throw_io(env, "_postSend", "ibv_post_send failed", error);
    }
}

JNIEXPORT void DISPATCHER(postRecv)(JNIEnv *env, jobject self, jlong qp, jlong wrlist) {
    if (qp == 0 || wrlist == 0) {
        throw_io(env, "_postRecv", "qp or list null", 0);
        return;
    }
    struct ibv_recv_wr *bad = NULL;
    int error = ibv_post_recv(PTR(struct ibv_qp, qp), PTR(struct ibv_recv_wr, wrlist), &bad);
    if (error != 0) {
        throw_io(env, "_postRecv", "ibv_post_recv failed", error);
    }
}

JNIEXPORT jint DISPATCHER(getCqEvent)(JNIEnv *env, jobject self, jlong channel, jint timeout) {
    if (channel == 0) {
        throw_io(env, "_getCqEvent", "channel null", 0);
        return -1;
    }
    struct ibv_comp_channel *events = PTR(struct ibv_comp_channel, channel);
    if (wait_readable(events->fd, timeout) <= 0) {
        return -1;
    }
    struct ibv_cq *cq;
    void *context;
    return ibv_get_cq_event(events, &cq, &context) == 0 ? 0 : -1;
}

JNIEXPORT jint DISPATCHER(pollCQ)(JNIEnv *env, jobject self, jlong cq, jint ne, jlong wclist) {
    if (cq == 0 || wclist == 0) {
        throw_io(env, "_pollCQ", "cq or list null", 0);
        return -1;
    }
    return ibv_poll_cq(PTR(struct ibv_cq, cq), ne, PTR(struct ibv_wc, wclist));
}

JNIEXPORT jint DISPATCHER(reqNotifyCQ)(JNIEnv *env, jobject self, jlong cq, jint solicited) {
    if (cq == 0) {
        throw_io(env, "_reqNotifyCQ", "cq null", 0);
        return -1;
    }
    return ibv_req_notify_cq(PTR(struct ibv_cq, cq), solicited);
}

JNIEXPORT jint DISPATCHER(ackCqEvent)(JNIEnv *env, jobject self, jlong cq, jint nevents) {
    if (cq == 0) {
        return -1;
    }
    ibv_ack_cq_events(PTR(struct ibv_cq, cq), (unsigned int) nevents);
    return 0;
}

JNIEXPORT jint DISPATCHER(destroyCompChannel)(JNIEnv *env, jobject self, jlong channel) {
    return channel == 0 ? -1 : ibv_destroy_comp_channel(PTR(struct ibv_comp_channel, channel));
}

JNIEXPORT jint DISPATCHER(deallocPd)(JNIEnv *env, jobject self, jlong pd) {
    return pd == 0 ? -1 : ibv_dealloc_pd(PTR(struct ibv_pd, pd));
}

JNIEXPORT jint DISPATCHER(destroyCQ)(JNIEnv *env, jobject self, jlong cq) {
    return cq == 0 ? -1 : ibv_destroy_cq(PTR(struct ibv_cq, cq));
}

/* --- Field lookups ----------------------------------------------------------------------------------------- */

JNIEXPORT jlong DISPATCHER(getContext)(JNIEnv *env, jobject self, jlong id) {
    if (id == 0) {
        throw_io(env, "_getContext", "id null", 0);
        return -1;
    }
    struct ibv_context *verbs = PTR(struct rdma_cm_id, id)->verbs;
    return verbs != NULL ? HANDLE(verbs) : -1;
}

JNIEXPORT jint DISPATCHER(getQpNum)(JNIEnv *env, jobject self, jlong qp) {
    if (qp == 0) {
        throw_io(env, "_getQpNum", "qp null", 0);
        return -1;
    }
    return (jint) PTR(struct ibv_qp, qp)->qp_num;
}

JNIEXPORT jint DISPATCHER(getContextFd)(JNIEnv *env, jobject self, jlong context) {
    if (context == 0) {
        throw_io(env, "_getContextFd", "context null", 0);
        return -1;
    }
    return PTR(struct ibv_context, context)->cmd_fd;
}

JNIEXPORT jint DISPATCHER(getContextNumCompVectors)(JNIEnv *env, jobject self, jlong context) {
    if (context == 0) {
        throw_io(env, "_getContextNumCompVectors", "context null", 0);
        return -1;
    }
    return PTR(struct ibv_context, context)->num_comp_vectors;
}

JNIEXPORT jint DISPATCHER(getPdHandle)(JNIEnv *env, jobject self, jlong pd) {
    if (pd == 0) {
        throw_io(env, "_getPdHandle", "pd null", 0);
        return -1;
    }
    return (jint) PTR(struct ibv_pd, pd)->handle;
}

/* --- Layout checks (pure) ---------------------------------------------------------------------------------- */

JNIEXPORT jint DISPATCHER(getSockAddrInSize)(JNIEnv *env, jobject self) { return sizeof(struct sockaddr_in); }
JNIEXPORT jint DISPATCHER(getIbvRecvWRSize)(JNIEnv *env, jobject self) { return sizeof(struct ibv_recv_wr); }
JNIEXPORT jint DISPATCHER(getIbvSendWRSize)(JNIEnv *env, jobject self) { return sizeof(struct ibv_send_wr); }
JNIEXPORT jint DISPATCHER(getIbvSgeSize)(JNIEnv *env, jobject self) { return sizeof(struct ibv_sge); }
JNIEXPORT jint DISPATCHER(getIbvWCSize)(JNIEnv *env, jobject self) { return sizeof(struct ibv_wc); }
JNIEXPORT jint DISPATCHER(getRemoteAddressOffset)(JNIEnv *env, jobject self) {
    return offsetof(struct ibv_send_wr, wr.rdma.remote_addr);
}
JNIEXPORT jint DISPATCHER(getRKeyOffset)(JNIEnv *env, jobject self) {
    return offsetof(struct ibv_send_wr, wr.rdma.rkey);
}
JNIEXPORT jint DISPATCHER(getVersion)(JNIEnv *env, jobject self) { return JVERBS_VERSION; }
