"""The Workflows view: the project's workflows, their graph, inputs, live runs and gates."""
