// The browser table's entry point: defines the elements; <ph-app> does the rest.
import "./elements/ph-app.js";
