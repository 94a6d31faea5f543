#ifndef CHIREDIS_SHIM_H
#define CHIREDIS_SHIM_H
// hiredis is used for the protocol only: its reply reader (RESP2). Sockets and TLS are ours.
// Declared without pkg-config: hiredis.pc adds -D_FILE_OFFSET_BITS=64, which SwiftPM rejects.
#include <hiredis/hiredis.h>
#include <hiredis/read.h>
#include <stdlib.h>

// A reader whose arrays are bounded: hiredis allocates an array's element vector (8 bytes per element) as soon as
// it reads the `*N` header, so an unchecked count from a broken or hostile server is an allocation of up to 16 GiB.
// The reader's default reply functions are kept and called for everything else; a refused array becomes the
// reader's out-of-memory error with `limitExceeded` set, which the Swift wrapper reports as a protocol error.
typedef struct CHiredisReaderBox {
    redisReplyObjectFunctions functions;   // the bounded table the reader uses
    redisReplyObjectFunctions *defaults;   // hiredis' own table (redisReaderCreate's)
    long long maxElements;                 // the largest array accepted
    int limitExceeded;                     // set when an array was refused
} CHiredisReaderBox;

static inline void *CHiredis_createString(const redisReadTask *task, char *str, size_t len) {
    CHiredisReaderBox *box = (CHiredisReaderBox *)task->privdata;
    return box->defaults->createString(task, str, len);
}
static inline void *CHiredis_createArray(const redisReadTask *task, int elements) {
    CHiredisReaderBox *box = (CHiredisReaderBox *)task->privdata;
    if ((long long)elements > box->maxElements) {
        box->limitExceeded = 1;
        return NULL;
    }
    return box->defaults->createArray(task, elements);
}
static inline void *CHiredis_createInteger(const redisReadTask *task, long long value) {
    CHiredisReaderBox *box = (CHiredisReaderBox *)task->privdata;
    return box->defaults->createInteger(task, value);
}
static inline void *CHiredis_createNil(const redisReadTask *task) {
    CHiredisReaderBox *box = (CHiredisReaderBox *)task->privdata;
    return box->defaults->createNil(task);
}

/// A reader with arrays of at most `maxElements` elements; NULL when out of memory. Free with CHiredis_readerFree.
static inline redisReader *CHiredis_readerCreate(long long maxElements) {
    redisReader *reader = redisReaderCreate();
    if (reader == NULL) return NULL;
    CHiredisReaderBox *box = (CHiredisReaderBox *)calloc(1, sizeof(CHiredisReaderBox));
    if (box == NULL) {
        redisReaderFree(reader);
        return NULL;
    }
    box->defaults = reader->fn;
    box->maxElements = maxElements;
    box->functions.createString = CHiredis_createString;
    box->functions.createArray = CHiredis_createArray;
    box->functions.createInteger = CHiredis_createInteger;
    box->functions.createNil = CHiredis_createNil;
    box->functions.freeObject = box->defaults->freeObject;
    reader->fn = &box->functions;
    reader->privdata = box;
    return reader;
}

static inline void CHiredis_readerFree(redisReader *reader) {
    CHiredisReaderBox *box = (CHiredisReaderBox *)reader->privdata;
    reader->fn = box->defaults;
    reader->privdata = NULL;
    redisReaderFree(reader);
    free(box);
}

static inline int CHiredis_readerLimitExceeded(redisReader *reader) {
    return ((CHiredisReaderBox *)reader->privdata)->limitExceeded;
}
/// Bytes fed but not yet consumed by a complete reply.
static inline size_t CHiredis_readerBuffered(redisReader *reader) { return reader->len - reader->pos; }
static inline const char *CHiredis_readerError(redisReader *reader) { return reader->errstr; }
static inline int CHiredis_readerHasError(redisReader *reader) { return reader->err; }
#endif
