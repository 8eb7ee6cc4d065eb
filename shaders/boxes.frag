#version 330 core
// Lines added to the image: where cells share an edge, the edge is brighter.

in vec3 v_color;
out vec4 frag;

void main() { frag = vec4(v_color, 1.0); }
