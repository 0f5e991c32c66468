#define _GNU_SOURCE
#include "CNetlink.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>
#include <string.h>
#include <sys/socket.h>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/if_addr.h>
#include <linux/fib_rules.h>

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

/* ---- macro wrappers ------------------------------------------------------------------ */
size_t cnl_mnl_align(size_t len) { return MNL_ALIGN(len); }
size_t cnl_mnl_socket_buffer_size(void) { return MNL_SOCKET_BUFFER_SIZE; }
size_t cnl_nlmsg_hdrlen(void) { return NLMSG_HDRLEN; }
size_t cnl_nlmsg_align(size_t len) { return NLMSG_ALIGN(len); }
size_t cnl_nlmsg_length(size_t len) { return NLMSG_LENGTH(len); }

bool cnl_nlmsg_ok(const void *nlh, int remaining) {
    const struct nlmsghdr *h = nlh;
    return NLMSG_OK(h, remaining);
}

const void *cnl_nlmsg_next(const void *nlh, int *remaining) {
    const struct nlmsghdr *h = nlh;
    int len = *remaining;
    const struct nlmsghdr *next = NLMSG_NEXT(h, len);
    *remaining = len;
    return next;
}

const void *cnl_nlmsg_data(const void *nlh) { return NLMSG_DATA((const struct nlmsghdr *)nlh); }
uint16_t cnl_nlmsg_type(const void *nlh) { return ((const struct nlmsghdr *)nlh)->nlmsg_type; }
uint16_t cnl_nlmsg_flags(const void *nlh) { return ((const struct nlmsghdr *)nlh)->nlmsg_flags; }
uint32_t cnl_nlmsg_seq(const void *nlh) { return ((const struct nlmsghdr *)nlh)->nlmsg_seq; }
uint32_t cnl_nlmsg_pid(const void *nlh) { return ((const struct nlmsghdr *)nlh)->nlmsg_pid; }
uint32_t cnl_nlmsg_len(const void *nlh) { return ((const struct nlmsghdr *)nlh)->nlmsg_len; }

int cnl_nlmsg_error_code(const void *nlh) {
    const struct nlmsghdr *h = nlh;
    if (h->nlmsg_type != NLMSG_ERROR || h->nlmsg_len < NLMSG_LENGTH(sizeof(struct nlmsgerr)))
        return -EBADMSG;
    const struct nlmsgerr *err = NLMSG_DATA(h);
    return err->error;
}

bool cnl_rta_ok(const void *rta, int remaining) {
    const struct rtattr *a = rta;
    return RTA_OK(a, remaining);
}

const void *cnl_rta_next(const void *rta, int *remaining) {
    const struct rtattr *a = rta;
    int len = *remaining;
    const struct rtattr *next = RTA_NEXT(a, len);
    *remaining = len;
    return next;
}

const void *cnl_rta_data(const void *rta) { return RTA_DATA((const struct rtattr *)rta); }
int cnl_rta_payload(const void *rta) { return (int)RTA_PAYLOAD((const struct rtattr *)rta); }

const void *cnl_attr_first(const void *nlh, size_t payload_offset) {
    return mnl_nlmsg_get_payload_offset(nlh, payload_offset);
}

bool cnl_attr_ok(const void *nlh, const void *attr) {
    const struct nlmsghdr *h = nlh;
    return mnl_attr_ok(attr, (char *)mnl_nlmsg_get_payload_tail(h) - (char *)attr);
}

const void *cnl_attr_next(const void *attr) { return mnl_attr_next(attr); }
const void *cnl_attr_nested_first(const void *nest) { return mnl_attr_get_payload(nest); }

bool cnl_attr_nested_ok(const void *nest, const void *attr) {
    const char *end = (const char *)mnl_attr_get_payload(nest) + mnl_attr_get_payload_len(nest);
    return mnl_attr_ok(attr, end - (const char *)attr);
}

uint16_t cnl_attr_type(const void *attr) { return mnl_attr_get_type(attr); }
uint16_t cnl_attr_payload_len(const void *attr) { return mnl_attr_get_payload_len(attr); }
const void *cnl_attr_payload(const void *attr) { return mnl_attr_get_payload(attr); }
size_t cnl_ifla_offset(void) { return sizeof(struct ifinfomsg); }
size_t cnl_ifa_offset(void) { return sizeof(struct ifaddrmsg); }
size_t cnl_rtm_offset(void) { return sizeof(struct rtmsg); }

/* ---- sockets ------------------------------------------------------------------------- */
int cnl_socket_add_membership(struct mnl_socket *nl, unsigned int group) {
    int g = (int)group;
    if (mnl_socket_setsockopt(nl, NETLINK_ADD_MEMBERSHIP, &g, sizeof(g)) < 0)
        return -errno;
    return 0;
}

int cnl_socket_set_rcvbuf(struct mnl_socket *nl, int bytes, bool force) {
    int fd = mnl_socket_get_fd(nl);
    if (!force || setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes)) < 0) {
        if (setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes)) < 0)
            return -errno;
    }
    int actual = 0;
    socklen_t len = sizeof(actual);
    if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &actual, &len) < 0)
        return -errno;
    return actual;
}

int cnl_wake_pipe(int fds[2]) {
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0)
        return -errno;
    return 0;
}

int cnl_setns_net(int fd) {
    if (setns(fd, CLONE_NEWNET) < 0)
        return -errno;
    return 0;
}

/* ---- request builders ---------------------------------------------------------------- */
size_t cnl_build_dump(void *buf, size_t cap, uint16_t type, uint8_t family, uint32_t seq) {
    size_t need = MNL_ALIGN(sizeof(struct nlmsghdr)) + MNL_ALIGN(sizeof(struct rtmsg));
    if (cap < need) return 0;
    memset(buf, 0, need);
    struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
    nlh->nlmsg_type = type;
    nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    nlh->nlmsg_seq = seq;
    switch (type) {
    case RTM_GETLINK: {
        struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
        ifi->ifi_family = family;
        break;
    }
    case RTM_GETADDR: {
        struct ifaddrmsg *ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
        ifa->ifa_family = family;
        break;
    }
    case RTM_GETRULE: {
        struct fib_rule_hdr *frh = mnl_nlmsg_put_extra_header(nlh, sizeof(*frh));
        frh->family = family;
        break;
    }
    default: {
        struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
        rtm->rtm_family = family;
        break;
    }
    }
    return nlh->nlmsg_len;
}

size_t cnl_build_getroute(void *buf, size_t cap, uint8_t family, const uint8_t *addr, uint32_t seq) {
    size_t alen = family == AF_INET6 ? 16 : 4;
    size_t need = MNL_ALIGN(sizeof(struct nlmsghdr)) + MNL_ALIGN(sizeof(struct rtmsg)) + MNL_ATTR_HDRLEN + MNL_ALIGN(alen);
    if (cap < need) return 0;
    memset(buf, 0, need);
    struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
    nlh->nlmsg_type = RTM_GETROUTE;
    nlh->nlmsg_flags = NLM_F_REQUEST;
    nlh->nlmsg_seq = seq;
    struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
    rtm->rtm_family = family;
    rtm->rtm_dst_len = (unsigned char)(alen * 8);
    rtm->rtm_flags = RTM_F_LOOKUP_TABLE;
    mnl_attr_put(nlh, RTA_DST, alen, addr);
    return nlh->nlmsg_len;
}

size_t cnl_build_setlink_up(void *buf, size_t cap, int32_t ifindex, bool up, uint32_t seq) {
    size_t need = MNL_ALIGN(sizeof(struct nlmsghdr)) + MNL_ALIGN(sizeof(struct ifinfomsg));
    if (cap < need) return 0;
    memset(buf, 0, need);
    struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
    nlh->nlmsg_type = RTM_NEWLINK;
    nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
    nlh->nlmsg_seq = seq;
    struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
    ifi->ifi_family = AF_UNSPEC;
    ifi->ifi_index = ifindex;
    ifi->ifi_change = IFF_UP;
    ifi->ifi_flags = up ? IFF_UP : 0;
    return nlh->nlmsg_len;
}

/* ---- parsers ------------------------------------------------------------------------- */
static void copy_string(char *dst, size_t cap, const struct nlattr *attr) {
    size_t n = mnl_attr_get_payload_len(attr);
    const char *s = mnl_attr_get_payload(attr);
    size_t i = 0;
    for (; i < n && i + 1 < cap && s[i] != '\0'; i++) dst[i] = s[i];
    dst[i] = '\0';
}

int cnl_parse_link(const void *msg, cnl_link *out) {
    const struct nlmsghdr *nlh = msg;
    memset(out, 0, sizeof(*out));
    if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(struct ifinfomsg))) return -1;
    const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
    out->index = ifi->ifi_index;
    out->flags = ifi->ifi_flags;
    out->arphrd = ifi->ifi_type;
    const struct nlattr *attr;
    mnl_attr_for_each(attr, nlh, sizeof(*ifi)) {
        switch (mnl_attr_get_type(attr)) {
        case IFLA_IFNAME:
            copy_string(out->name, sizeof(out->name), attr);
            break;
        case IFLA_OPERSTATE:
            if (mnl_attr_get_payload_len(attr) >= 1) out->operstate = mnl_attr_get_u8(attr);
            break;
        case IFLA_WIRELESS:
            out->has_wireless = true;
            break;
        case IFLA_LINKINFO: {
            const struct nlattr *nested;
            mnl_attr_for_each_nested(nested, attr) {
                if (mnl_attr_get_type(nested) == IFLA_INFO_KIND)
                    copy_string(out->kind, sizeof(out->kind), nested);
            }
            break;
        }
        default:
            break;
        }
    }
    return 0;
}

int cnl_parse_addr(const void *msg, cnl_addr *out) {
    const struct nlmsghdr *nlh = msg;
    memset(out, 0, sizeof(*out));
    if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(struct ifaddrmsg))) return -1;
    const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);
    out->index = (int32_t)ifa->ifa_index;
    out->family = ifa->ifa_family;
    out->prefixlen = ifa->ifa_prefixlen;
    out->scope = ifa->ifa_scope;
    out->flags = ifa->ifa_flags;
    size_t alen = ifa->ifa_family == AF_INET6 ? 16 : 4;
    bool have_local = false, have_any = false;
    const struct nlattr *attr;
    mnl_attr_for_each(attr, nlh, sizeof(*ifa)) {
        uint16_t type = mnl_attr_get_type(attr);
        uint16_t plen = mnl_attr_get_payload_len(attr);
        if ((type == IFA_LOCAL || type == IFA_ADDRESS) && plen >= alen) {
            if (type == IFA_LOCAL) {
                memcpy(out->address, mnl_attr_get_payload(attr), alen);
                have_local = true;
                have_any = true;
            } else if (!have_local) {
                memcpy(out->address, mnl_attr_get_payload(attr), alen);
                have_any = true;
            }
        } else if (type == IFA_FLAGS && plen >= 4) {
            out->flags = mnl_attr_get_u32(attr);
        }
    }
    return have_any ? 0 : -1;
}

static void parse_via(cnl_route *out, const struct nlattr *attr) {
    /* struct rtvia { __kernel_sa_family_t rtvia_family; __u8 rtvia_addr[]; } */
    uint16_t plen = mnl_attr_get_payload_len(attr);
    const uint8_t *p = mnl_attr_get_payload(attr);
    if (plen < 2) return;
    uint16_t fam;
    memcpy(&fam, p, 2);
    size_t alen = fam == AF_INET6 ? 16 : 4;
    if (plen < 2 + alen) return;
    memcpy(out->gateway, p + 2, alen);
    out->gateway_family = (uint8_t)fam;
    out->has_gateway = true;
}

int cnl_parse_route(const void *msg, cnl_route *out) {
    const struct nlmsghdr *nlh = msg;
    memset(out, 0, sizeof(*out));
    if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(struct rtmsg))) return -1;
    const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
    out->family = rtm->rtm_family;
    out->dst_len = rtm->rtm_dst_len;
    out->src_len = rtm->rtm_src_len;
    out->tos = rtm->rtm_tos;
    out->protocol = rtm->rtm_protocol;
    out->scope = rtm->rtm_scope;
    out->type = rtm->rtm_type;
    out->flags = rtm->rtm_flags;
    out->table = rtm->rtm_table;
    size_t alen = rtm->rtm_family == AF_INET6 ? 16 : 4;
    const struct nlattr *attr;
    mnl_attr_for_each(attr, nlh, sizeof(*rtm)) {
        uint16_t type = mnl_attr_get_type(attr);
        uint16_t plen = mnl_attr_get_payload_len(attr);
        switch (type) {
        case RTA_DST:
            if (plen >= alen) { memcpy(out->dst, mnl_attr_get_payload(attr), alen); out->has_dst = true; }
            break;
        case RTA_GATEWAY:
            if (plen >= alen) {
                memcpy(out->gateway, mnl_attr_get_payload(attr), alen);
                out->gateway_family = rtm->rtm_family;
                out->has_gateway = true;
            }
            break;
        case RTA_VIA:
            parse_via(out, attr);
            break;
        case RTA_PREFSRC:
            if (plen >= alen) { memcpy(out->prefsrc, mnl_attr_get_payload(attr), alen); out->has_prefsrc = true; }
            break;
        case RTA_OIF:
            if (plen >= 4) out->oif = (int32_t)mnl_attr_get_u32(attr);
            break;
        case RTA_PRIORITY:
            if (plen >= 4) out->priority = mnl_attr_get_u32(attr);
            break;
        case RTA_TABLE:
            if (plen >= 4) out->table = mnl_attr_get_u32(attr);
            break;
        case RTA_MULTIPATH: {
            const uint8_t *p = mnl_attr_get_payload(attr);
            int remaining = plen;
            const struct rtnexthop *nh = (const struct rtnexthop *)p;
            while (RTNH_OK(nh, remaining)) {
                if (out->nexthops == 0) {
                    if (out->oif == 0) out->oif = nh->rtnh_ifindex;
                    out->flags |= nh->rtnh_flags;
                    int alen2 = (int)nh->rtnh_len - (int)sizeof(*nh);
                    const struct rtattr *rta = RTNH_DATA(nh);
                    while (RTA_OK(rta, alen2)) {
                        if (rta->rta_type == RTA_GATEWAY && RTA_PAYLOAD(rta) >= alen && !out->has_gateway) {
                            memcpy(out->gateway, RTA_DATA(rta), alen);
                            out->gateway_family = rtm->rtm_family;
                            out->has_gateway = true;
                        }
                        rta = RTA_NEXT(rta, alen2);
                    }
                }
                out->nexthops += 1;
                remaining -= (int)RTNH_ALIGN(nh->rtnh_len);
                nh = RTNH_NEXT(nh);
            }
            break;
        }
        default:
            break;
        }
    }
    return 0;
}

int cnl_parse_rule(const void *msg, cnl_rule *out) {
    const struct nlmsghdr *nlh = msg;
    memset(out, 0, sizeof(*out));
    if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(struct fib_rule_hdr))) return -1;
    const struct fib_rule_hdr *frh = mnl_nlmsg_get_payload(nlh);
    out->family = frh->family;
    out->action = frh->action;
    out->table = frh->table;
    const struct nlattr *attr;
    mnl_attr_for_each(attr, nlh, sizeof(*frh)) {
        uint16_t type = mnl_attr_get_type(attr);
        if (mnl_attr_get_payload_len(attr) < 4) continue;
        if (type == FRA_TABLE) out->table = mnl_attr_get_u32(attr);
        else if (type == FRA_PRIORITY) out->priority = mnl_attr_get_u32(attr);
    }
    return 0;
}
