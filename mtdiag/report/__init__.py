"""What leaves the tool: the HTML report, the table writers, the Pearmut campaign."""
