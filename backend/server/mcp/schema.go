package mcp

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	"github.com/reclaim-sol/reclaim/gen/openapi"
)

// operation is one REST operation of the OpenAPI document, as the MCP tools
// and /llms.txt read it.
type operation struct {
	ID          string
	Method      string
	Path        string
	Description string
	// Input is the JSON Schema of the operation's arguments as one object:
	// its path and query parameters and its body's fields, by the names the
	// REST API gives them.
	Input map[string]any
	// Output is the JSON Schema of its 200 answer.
	Output map[string]any
	// Headers are the header parameters among Input's properties: the
	// header each argument stands for, by the argument's name.
	Headers map[string]string
}

// argumentName is the name a tool argument takes for a parameter: a
// header's in lower camel case (Idempotency-Key: idempotencyKey), for a
// header's name is no JSON field's; a path's or a query's as it is.
func argumentName(in, name string) string {
	if in != "header" {
		return name
	}
	var b strings.Builder
	for i, part := range strings.FieldsFunc(name, func(r rune) bool { return r == '-' || r == '_' }) {
		if i == 0 {
			b.WriteString(strings.ToLower(part))
			continue
		}
		b.WriteString(strings.ToUpper(part[:1]) + strings.ToLower(part[1:]))
	}
	return b.String()
}

// parameter is an OpenAPI parameter, or a $ref to one of the document's.
type parameter struct {
	Ref         string         `json:"$ref"`
	Name        string         `json:"name"`
	In          string         `json:"in"`
	Description string         `json:"description"`
	Required    bool           `json:"required"`
	Schema      map[string]any `json:"schema"`
}

// operations reads the REST operations of the OpenAPI document (the
// contract, generated from proto/), with every $ref inlined, by operationId.
func operations() (map[string]operation, error) {
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas    map[string]any       `json:"schemas"`
			Parameters map[string]parameter `json:"parameters"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openapi.Document, &doc); err != nil {
		return nil, err
	}
	out := map[string]operation{}
	for path, methods := range doc.Paths {
		for method, raw := range methods {
			var op struct {
				OperationID string      `json:"operationId"`
				Description string      `json:"description"`
				Parameters  []parameter `json:"parameters"`
				RequestBody struct {
					Content map[string]struct {
						Schema map[string]any `json:"schema"`
					} `json:"content"`
				} `json:"requestBody"`
				Responses map[string]struct {
					Content map[string]struct {
						Schema map[string]any `json:"schema"`
					} `json:"content"`
				} `json:"responses"`
			}
			if err := json.Unmarshal(raw, &op); err != nil || op.OperationID == "" {
				continue // not an operation (a path's shared parameters)
			}
			props, required, headers := map[string]any{}, []any{}, map[string]string{}
			for _, p := range op.Parameters {
				if p.Ref != "" {
					target, found := doc.Components.Parameters[strings.TrimPrefix(p.Ref, "#/components/parameters/")]
					if !found || target.Ref != "" {
						return nil, fmt.Errorf("openapi: %s %s: unknown parameter %s", method, path, p.Ref)
					}
					p = target
				}
				name := argumentName(p.In, p.Name)
				if name == "" || p.Schema == nil {
					return nil, fmt.Errorf("openapi: %s %s: a parameter without a name or a schema", method, path)
				}
				schema := p.Schema
				if p.Description != "" && schema["description"] == nil {
					schema = maps.Clone(schema)
					schema["description"] = p.Description
				}
				props[name] = schema
				if p.In == "header" {
					headers[name] = p.Name
				}
				if p.Required {
					required = append(required, name)
				}
			}
			if body := op.RequestBody.Content["application/json"].Schema; body != nil {
				body = resolve(body, doc.Components.Schemas, 0).(map[string]any)
				if bp, ok := body["properties"].(map[string]any); ok {
					maps.Copy(props, bp)
				}
				if br, ok := body["required"].([]any); ok {
					required = append(required, br...)
				}
			}
			input := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
			if len(required) > 0 {
				input["required"] = required
			}
			o := operation{
				ID: op.OperationID, Method: strings.ToUpper(method), Path: path, Description: op.Description,
				Input: resolve(input, doc.Components.Schemas, 0).(map[string]any), Headers: headers,
			}
			if ok := op.Responses["200"].Content["application/json"].Schema; ok != nil {
				o.Output = resolve(ok, doc.Components.Schemas, 0).(map[string]any)
			}
			out[o.ID] = o
		}
	}
	return out, nil
}

// resolve returns a copy of schema with every $ref to a component inlined
// and the OpenAPI formats (int64, double) dropped: a JSON Schema validator
// that checks formats refuses ones it does not know.
func resolve(schema any, components map[string]any, depth int) any {
	if depth > 32 {
		panic("openapi: schemas nest too deep (a recursive $ref?)")
	}
	switch s := schema.(type) {
	case map[string]any:
		if ref, ok := s["$ref"].(string); ok {
			name := strings.TrimPrefix(ref, "#/components/schemas/")
			target, found := components[name]
			if !found {
				panic(fmt.Sprintf("openapi: unknown $ref %s", ref))
			}
			inlined := resolve(target, components, depth+1).(map[string]any)
			if d, ok := s["description"]; ok {
				inlined = maps.Clone(inlined)
				inlined["description"] = d
			}
			return inlined
		}
		out := make(map[string]any, len(s))
		for k, v := range s {
			if _, str := v.(string); k == "format" && str {
				continue
			}
			out[k] = resolve(v, components, depth+1)
		}
		return out
	case []any:
		out := make([]any, len(s))
		for i, v := range s {
			out[i] = resolve(v, components, depth+1)
		}
		return out
	}
	return schema
}
