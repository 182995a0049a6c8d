// The replay page's entry point: defines the elements; <ph-replay> does the rest.
import "./elements/ph-replay.js";
