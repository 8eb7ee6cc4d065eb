/* Recording the final image, one frame per call: into a video through ffmpeg, or into a folder of
 * numbered PNGs. A video goes to a temporary name beside the target and replaces the target only
 * when ffmpeg has finished it, so an interrupted or failed recording leaves an older file alone. */
#ifndef STARBURST_RECORD_H
#define STARBURST_RECORD_H

#include <stddef.h>
#include <stdint.h>

typedef struct Recorder Recorder;

typedef struct RecorderDesc {
    /* A name ending in .mp4, .mkv, .webm or .mov: a video (H.264; VP9 for .webm), which needs
     * ffmpeg on PATH. Anything else: a folder for frame_000001.png, ... (created when missing,
     * in a folder that exists; one that already holds frame_000001.png is refused). */
    const char *path;
    /* The size of every frame of the recording. A video rounds it down to even numbers, which
     * yuv420p needs. */
    int width, height;
    int fps; /* 0 = 60 */
} RecorderDesc;

/* Starts a recording: NULL with one line in err ("--record out.mp4 needs ffmpeg, which is not
 * installed (apt-get install ffmpeg), or give a folder for numbered PNGs"). A video recording
 * sets SIGPIPE to be ignored (where it was left at its default), so that an ffmpeg that dies
 * makes a write fail instead of ending the program. */
Recorder *recorder_open(const RecorderDesc *desc, char *err, size_t errlen);
/* Adds one frame: rgb holds width x height pixels, top row first. A frame of another size than
 * the recording's (the window was resized) is centred on it: cropped where larger, padded with
 * black where smaller, so that the video stays valid. 0, or -1 with err; after a failure every
 * later call fails with the same message. */
int recorder_frame(Recorder *r, const uint8_t *rgb, int width, int height, char *err, size_t errlen);
/* Reads framebuffer (0 = the window's back buffer: call before swapping) and adds it as a frame.
 * A 0 x 0 framebuffer (a minimised window) adds nothing and returns 0. */
int recorder_capture(Recorder *r, unsigned int framebuffer, int width, int height, char *err, size_t errlen);
/* The size every frame of the recording has (a video's rounded down to even numbers). */
void recorder_size(const Recorder *r, int *width, int *height);
/* Finishes the recording and frees r (NULL is a no-op returning 0). A video: ends ffmpeg's input,
 * waits for it and renames its file onto the target. 0 with msg saying what was written
 * ("recorded 300 frames over 12.3 s to out.mp4: 5.0 s of video at 60 fps": the time from
 * the start to the last frame, then the video's length), or -1 with msg saying what failed; a
 * video that failed leaves the target as it was. */
int recorder_close(Recorder *r, char *msg, size_t msglen);

int recorder_frames(const Recorder *r);       /* frames added so far */
const char *recorder_path(const Recorder *r); /* the target, as given */

/* A new name in the current folder for a recording started from the keyboard:
 * "starburst-20250101-120000.mp4" when ffmpeg is on PATH, else the folder
 * "starburst-20250101-120000"; "-2", "-3", ... are added before the extension while the name is
 * taken. 0, or -1 when len is too short. */
int recorder_new_path(char *buf, size_t len);
/* The same with the extension given (".png"); "" names a folder. */
int recorder_new_name(char *buf, size_t len, const char *ext);

#endif
