# stream-length.sh — sourced by compare-tcp.sh and compare-shm.sh: how many messages one
# streamed (bw) run moves at a size.
#
# fabtests' default iteration counts make a streamed run of small messages last 10-80 ms
# (shm 64 B: 40 192 messages, 10 ms for C): too short for a JVM whose run-time profile of the
# measured connection is still being compiled, and shorter than one scheduling hiccup of a
# shared host. On 2026-11-27 (07:02 UTC, shm) the same JOFI build streamed 64 B at 0.57x C and
# 4 KiB at 0.88x C over 400 000 messages, but 0.22x and 0.18x over 40 192. So a stream moves
# STREAM_BYTES (per provider default below; override in the environment), at least 64
# windows of 64 and at most STREAM_MAX_MESSAGES messages — every contender the same count.
#
#   stream_messages SIZE DEFAULT_BYTES DEFAULT_MAX
stream_messages() {
    local size=$1 bytes=${STREAM_BYTES:-$2} max=${STREAM_MAX_MESSAGES:-$3} m
    (( size > 0 )) || size=1
    m=$(( bytes / size ))
    (( m <= max )) || m=$max
    m=$(( (m + 63) / 64 * 64 ))            # whole windows of 64
    (( m >= 64 * 64 )) || m=$(( 64 * 64 ))
    echo "$m"
}
