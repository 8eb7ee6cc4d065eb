#version 330 core
// The cells of a tree as wire cubes: one instance a cell, its 12 edges from the unit cube scaled
// to the cell's half side about its centre. Colour by level: the root's a pale gold, deeper cells
// turning to teal and fading, so that the coarse cells frame the picture and the fine ones haze.

layout(location = 0) in vec3 a_corner; // an end of an edge of [-1, 1]^3
layout(location = 1) in vec4 a_box;    // centre x, y, z, half side
layout(location = 2) in float a_level; // 0 = the root

uniform mat4 u_view;
uniform mat4 u_proj;
uniform float u_gain; // the root's light
uniform float u_fade; // each level's light over the level above's

out vec3 v_color;

void main()
{
    gl_Position = u_proj * u_view * vec4(a_box.xyz + a_box.w * a_corner, 1.0);
    vec3 color = mix(vec3(1.00, 0.85, 0.55), vec3(0.35, 0.85, 0.80), clamp(a_level / 4.0, 0.0, 1.0));
    v_color = color * (u_gain * pow(u_fade, a_level));
}
