#ifndef COPUS_SHIM_H
#define COPUS_SHIM_H
#include <opus.h>
#include <opusenc.h>
#include <opusfile.h>
#include <ogg/ogg.h>
// ope_encoder_ctl is variadic and its OPUS_SET_* / OPE_SET_* arguments are macros: wrapped here.
static inline int COpus_ope_set_bitrate(OggOpusEnc *enc, opus_int32 v) { return ope_encoder_ctl(enc, OPUS_SET_BITRATE(v)); }
static inline int COpus_ope_set_complexity(OggOpusEnc *enc, opus_int32 v) {
    return ope_encoder_ctl(enc, OPUS_SET_COMPLEXITY(v));
}
static inline int COpus_ope_set_application(OggOpusEnc *enc, opus_int32 v) {
    return ope_encoder_ctl(enc, OPUS_SET_APPLICATION(v));
}
static inline int COpus_ope_set_signal(OggOpusEnc *enc, opus_int32 v) { return ope_encoder_ctl(enc, OPUS_SET_SIGNAL(v)); }
static inline int COpus_ope_set_vbr(OggOpusEnc *enc, opus_int32 v) { return ope_encoder_ctl(enc, OPUS_SET_VBR(v)); }
static inline int COpus_ope_set_frame_duration(OggOpusEnc *enc, opus_int32 v) {
    return ope_encoder_ctl(enc, OPUS_SET_EXPERT_FRAME_DURATION(v));
}
static inline int COpus_ope_set_serialno(OggOpusEnc *enc, opus_int32 v) { return ope_encoder_ctl(enc, OPE_SET_SERIALNO(v)); }
static inline int COpus_ope_set_comment_padding(OggOpusEnc *enc, opus_int32 v) {
    return ope_encoder_ctl(enc, OPE_SET_COMMENT_PADDING(v));
}
#endif
