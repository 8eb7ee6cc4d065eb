#version 330 core
// A halo field as a ring facing the eye about its centre: the outline on the screen of the sphere
// that holds half the halo's mass. One instance a halo; its centre is the halo's centre body, read
// from the bodies' buffer as the simulation left it, so the ring moves with the halo.

layout(location = 0) in vec2 a_around; // a point of the unit circle
layout(location = 1) in vec4 a_centre; // the centre body: x, y, z, mass

uniform mat4 u_view;
uniform mat4 u_proj;
uniform float u_radius[4]; // each halo's, in model units
uniform vec3 u_color;

out vec3 v_color;

void main()
{
    vec4 centre = u_view * vec4(a_centre.xyz, 1.0);
    gl_Position = u_proj * (centre + vec4(u_radius[gl_InstanceID] * a_around, 0.0, 0.0));
    v_color = u_color;
}
