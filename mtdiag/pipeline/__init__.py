"""The one input path every command and the dashboard take, from the data given to the report of its slice."""
