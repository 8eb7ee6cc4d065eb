// The type the UI and the bench's charts draw with. C++: it hands out Dear ImGui's font objects,
// and needs nothing else of ours, so both reach it here.
#ifndef STARBURST_FONT_H
#define STARBURST_FONT_H

#include <imgui.h>

// Adds `file` (a DejaVu Sans face) at px pixels to the atlas; never NULL.
ImFont *font_add(ImFontAtlas *atlas, const char *file, float px);

#endif
