module github.com/mnemobank/mnemobank

go 1.25.0

require (
	github.com/evanphx/json-patch/v5 v5.9.11
	github.com/google/jsonschema-go v0.4.3
	github.com/stretchr/testify v1.12.1
	github.com/xeipuuv/gojsonschema v1.2.0
	go.yaml.in/yaml/v3 v3.0.5
	golang.org/x/sys v0.38.0
	golang.org/x/text v0.36.0
)

require (
	github.com/xeipuuv/gojsonpointer v0.0.0-20180127040702-4e3ac2762d5f // indirect
	github.com/xeipuuv/gojsonreference v0.0.0-20180127040603-bd5ef7bd5415 // indirect
)
