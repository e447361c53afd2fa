/* Built-in demo host and flavor (seed document 000). */
