#pragma once
#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic (they do not import into Swift): one typed wrapper per
// argument kind used.
static inline CURLcode sb_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode sb_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode sb_curl_setopt_list(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode sb_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static size_t sb_curl_discard(char *data, size_t size, size_t count, void *user) {
    (void)data;
    (void)user;
    return size * count;
}

// The response body is not kept: only the status matters.
static inline CURLcode sb_curl_discard_body(CURL *handle) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, sb_curl_discard);
}

// CURL_GLOBAL_DEFAULT and CURL_HTTP_VERSION_2TLS are macros or anonymous enum values.
static inline CURLcode sb_curl_global_init(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }

static inline long sb_curl_http_version_2tls(void) { return (long)CURL_HTTP_VERSION_2TLS; }
